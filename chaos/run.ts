import './env';
import { parseArgs } from 'node:util';
/**
 * The long chaos run:
 *
 *   npm run test:chaos -- --runs 1000 --seed 42 --kills 20
 *
 * Options: --runs N (seeded delivery schedules), --seed S (base seed; every schedule's seed is printed
 * on failure), --kills K (SIGKILL restarts of a consumer process under load), --pauses P (SIGSTOP/SIGCONT
 * lease pauses), --shards N (schedules of the `shards` world: the feed on 32 simulated shards that split and
 * roll over; then the SIGKILL scenario on such shards, with --kills kills), --reactions N (schedules of the
 * `reactions` world: a reaction and a workflow with timers under every fault, calls cut short, parking;
 * see `reactions.ts`), --rate R (share of faulted calls, default 0.08), --only delivery|crash|lease|bad-input|shards|reactions,
 * --schedule SEED --run N (re-run one schedule by its own seed, shaped as the run's Nth schedule; the
 * failure message prints both), --markdown (the summary as a Markdown table, for the docs). Uses
 * DYNAMODB_ENDPOINT when set, else starts an embedded DynamoDB Local. Exits 1 unless every row matched
 * its fold and every event was accounted for.
 *
 * Delivery schedules: every client loses some of its writes' answers after DynamoDB applied them (the SDK
 * sends them again, or gives up), and no event is excused for it; half write an outbox and relay
 * it; a quarter poison rows (several kinds of bug, several poison events per row, fixed in two or three
 * steps, with skips in half of them: see `poison.ts` and `parking.ts`); half, drawn from each schedule's
 * seed, read their records through 32 simulated shards instead of straight from DynamoDB Local; a quarter
 * are followed by a rolling deploy (`rolling-deploy.ts`: last month's and today's definitions of a stream
 * appending and projecting at once, parking on; no row may be counted towards parking or parked).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoLocal, DynamoLocalDefaults, type DynamoLocal } from 'dynafold/local';
import { runBadInputCorpus } from './bad-input';
import { runCrashScenario } from './crash';
import { ALL_FAULTS } from './faults';
import { prepareDelivery, runSchedule } from './delivery';
import { runLeaseScenario } from './lease';
import { createReactionsWorld, dropReactionsWorld, runReactionsSchedule } from './reactions';
import { runRollingDeploy } from './rolling-deploy';
import { runShardsScenario } from './shards';
import { scheduleSeed } from './random';
import { ChaosSummary } from './summary';
import { dropTables, type ClientConfig, type Tables } from './world';

interface Args {
  runs: number;
  seed: number;
  kills: number;
  pauses: number;
  shards: number;
  reactions: number;
  rate: number;
  only: string | undefined;
  schedule: number | undefined;
  run: number;
  markdown: boolean;
}

/** The command line, parsed by node:util's parseArgs; numbers are checked here. */
function readArgs(argv: ReadonlyArray<string>): Args {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      runs: { type: 'string', default: '200' },
      seed: { type: 'string', default: String(Date.now() % 1_000_000) },
      kills: { type: 'string', default: '5' },
      pauses: { type: 'string', default: '2' },
      shards: { type: 'string', default: '2' },
      reactions: { type: 'string', default: '50' },
      rate: { type: 'string', default: '0.08' },
      only: { type: 'string' },
      schedule: { type: 'string' },
      run: { type: 'string', default: '1' },
      markdown: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const number = (name: string, value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n)) throw new Error(`--${name} expects a number, got ${value}`);
    return n;
  };
  return {
    runs: number('runs', values.runs),
    seed: number('seed', values.seed),
    kills: number('kills', values.kills),
    pauses: number('pauses', values.pauses),
    shards: number('shards', values.shards),
    reactions: number('reactions', values.reactions),
    rate: number('rate', values.rate),
    only: values.only,
    schedule: values.schedule === undefined ? undefined : number('schedule', values.schedule),
    run: number('run', values.run),
    markdown: values.markdown,
  };
}

/** How many delivery schedules share one world (its tables) before the next starts afresh. */
const SCHEDULES_PER_WORLD = 50;

/** Mean seconds a schedule took, by kind, since the last report: a run that slows down shows where. */
class SchedulePace {
  private readonly durations = new Map<string, number[]>();

  add(kind: string, ms: number): void {
    const durations = this.durations.get(kind) ?? [];
    durations.push(ms);
    this.durations.set(kind, durations);
  }

  take(): string {
    const means = [...this.durations].map(([kind, ms]) => `${kind} ${(ms.reduce((a, b) => a + b, 0) / ms.length / 1000).toFixed(1)} s`);
    this.durations.clear();
    return `mean ${means.join(', ')}`;
  }
}

/** What a schedule exercises, by its place in the run (a re-run with --run gets the same). */
function scheduleShape(run: number) {
  return {
    // Every fault, lost answers of every write on every client among them.
    kinds: ALL_FAULTS,
    // Half the schedules write an outbox and relay it.
    outbox: run % 4 === 1 || run % 4 === 2,
    // A quarter of the schedules poison a few rows, which are parked, partly fixed, skipped, then replayed once fixed.
    poison: run % 4 === 3,
    // A quarter are followed by a rolling deploy: two definitions of a stream at once, with parking on.
    rolling: run % 4 === 0,
  };
}

/** The DynamoDB Local the run talks to, started by the run itself unless DYNAMODB_ENDPOINT names one. */
interface Connection {
  readonly local: DynamoLocal | undefined;
  readonly config: ClientConfig;
  readonly client: DynamoDBClient;
}

async function connect(start: boolean): Promise<Connection> {
  const local = start ? await startDynamoLocal({ heapMb: 1024 }) : undefined;
  // Child processes (crash and lease scenarios) and the stream readers find it here.
  if (local !== undefined) process.env['DYNAMODB_ENDPOINT'] = local.endpoint;
  const config: ClientConfig = {
    endpoint: process.env['DYNAMODB_ENDPOINT'] ?? '',
    region: DynamoLocalDefaults.region,
    credentials: { ...DynamoLocalDefaults.credentials },
  };
  return { local, config, client: new DynamoDBClient({ ...config, maxAttempts: 5 }) };
}

async function disconnect(connection: Connection): Promise<void> {
  connection.client.destroy();
  await connection.local?.stop();
}

/**
 * Done with a world: a DynamoDB Local the run started is replaced by a fresh one, else the world's tables
 * are deleted. Deleting is not enough for a long run: DynamoDB Local slows as stream-enabled tables come
 * and go, and outbox schedules (one such table each, deleted after) took 5.0, 11.1 and 18.0 s on average
 * in a run's first three worlds while the other schedules kept their pace.
 */
async function freshWorld(connection: Connection, ownsDatabase: boolean, tables: Tables): Promise<Connection> {
  if (!ownsDatabase) {
    await dropTables(connection.client, tables.eventsTable, tables.viewsTable);
    return connection;
  }
  await disconnect(connection);
  return connect(true);
}

async function main(): Promise<number> {
  const args = readArgs(process.argv.slice(2));
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const ownsDatabase = process.env['DYNAMODB_ENDPOINT'] === undefined;
  let connection = await connect(ownsDatabase);
  const total = new ChaosSummary();
  const started = Date.now();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  // A rejection nobody handles is a problem the summary reports, not the end of an hours-long run.
  process.on('unhandledRejection', (error: unknown) => {
    const problem = `unhandled rejection: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    total.problem(problem);
    say(problem);
  });
  say(`dynafold chaos: seed ${args.seed}, runs ${args.runs}, kills ${args.kills}, pauses ${args.pauses}, fault rate ${args.rate}`);
  try {
    const want = (part: string) => args.only === undefined || args.only === part;
    if (want('bad-input')) {
      const bad = await runBadInputCorpus(connection.config, connection.client);
      total.merge(bad);
      say(`bad-input corpus: ${bad.badInputKinds} kinds, ${bad.problems.length === 0 ? 'ok' : 'FAILED'}`);
    }
    if (want('delivery')) {
      let input = await prepareDelivery(connection.config, connection.client, { seed: args.seed });
      const schedules =
        args.schedule === undefined
          ? Array.from({ length: args.runs }, (_, run) => ({ run, seed: scheduleSeed(args.seed, run) }))
          : [{ run: args.run, seed: args.schedule }];
      const pace = new SchedulePace();
      for (const [index, { run, seed }] of schedules.entries()) {
        // A fresh world every 50 schedules keeps the views table small: in a world that had served 200,
        // 50 schedules took several times as long as the first 50 (801 s against 90 s in one run).
        const worldSeed = args.seed + index - (index % SCHEDULES_PER_WORLD);
        if (index > 0 && index % SCHEDULES_PER_WORLD === 0) {
          connection = await freshWorld(connection, ownsDatabase, input.tables);
          input = await prepareDelivery(connection.config, connection.client, { seed: worldSeed });
        }
        const shape = scheduleShape(run);
        const scheduleStarted = Date.now();
        const result = await runSchedule(input, { seed, faultRate: args.rate, ...shape });
        pace.add(shape.poison ? 'poison' : shape.outbox ? 'outbox' : 'plain', Date.now() - scheduleStarted);
        if (shape.rolling) {
          const rollingStarted = Date.now();
          result.merge(await runRollingDeploy(connection.config, connection.client, { seed, faultRate: args.rate }));
          pace.add('rolling', Date.now() - rollingStarted);
        }
        total.merge(result);
        if (!result.ok)
          say(
            `schedule ${run} (seed ${seed}) FAILED: re-run with --only delivery --seed ${worldSeed} --schedule ${seed} --run ${run} (its world's seed; a rare race may need several tries)\n  ${result.problems.join('\n  ')}`,
          );
        if ((index + 1) % 50 === 0)
          say(`  ${index + 1}/${schedules.length} schedules, ${Math.round((Date.now() - started) / 1000)} s (${pace.take()})`);
      }
      connection = await freshWorld(connection, ownsDatabase, input.tables);
    }
    if (want('crash') && args.kills > 0) {
      const crash = await runCrashScenario(connection.config, connection.client, {
        seed: args.seed,
        kills: args.kills,
        faultRate: args.rate,
        log: say,
      });
      total.merge(crash);
    }
    if (want('lease') && args.pauses > 0) {
      for (let pause = 0; pause < args.pauses; pause++) {
        const lease = await runLeaseScenario(connection.config, connection.client, { seed: args.seed + pause, log: say });
        total.merge(lease);
      }
    }
    if (want('shards')) {
      for (let schedule = 0; schedule < args.shards; schedule++) {
        total.merge(
          await runShardsScenario(connection.config, connection.client, { seed: scheduleSeed(args.seed, schedule), faultRate: args.rate, log: say }),
        );
      }
      // Consumer processes SIGKILLed on the simulated shards: each rebuilds the same lineage from the seed.
      if (args.kills > 0)
        total.merge(
          await runCrashScenario(connection.config, connection.client, {
            seed: args.seed,
            kills: args.kills,
            faultRate: args.rate,
            shards: true,
            log: say,
          }),
        );
    }
    if (want('reactions') && args.reactions > 0) {
      let world = await createReactionsWorld(connection.client);
      const pace = new SchedulePace();
      for (let run = 0; run < args.reactions; run++) {
        // A fresh world every 50 schedules, as the delivery world's: DynamoDB Local slows as a stream grows.
        if (run > 0 && run % SCHEDULES_PER_WORLD === 0) {
          await dropReactionsWorld(connection.client, world);
          world = await createReactionsWorld(connection.client);
        }
        const seed = args.schedule ?? scheduleSeed(args.seed, run);
        const scheduleStarted = Date.now();
        const result = await runReactionsSchedule(connection.config, connection.client, world, { seed, faultRate: args.rate });
        pace.add('reactions', Date.now() - scheduleStarted);
        total.merge(result);
        if (!result.ok)
          say(
            `reactions schedule ${run} (seed ${seed}) FAILED: re-run with --only reactions --reactions 1 --schedule ${seed}\n  ${result.problems.join('\n  ')}`,
          );
        if ((run + 1) % 10 === 0)
          say(`  reactions: ${run + 1}/${args.reactions} schedules, ${Math.round((Date.now() - started) / 1000)} s (${pace.take()})`);
        if (args.schedule !== undefined) break;
      }
      await dropReactionsWorld(connection.client, world);
    }
  } finally {
    await disconnect(connection);
  }
  say('');
  const title = `dynafold chaos summary (seed ${args.seed}, ${Math.round((Date.now() - started) / 1000)} s)`;
  say(args.markdown ? total.markdown(title) : total.table(title));
  return total.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
