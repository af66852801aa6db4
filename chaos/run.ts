import './env';
/**
 * The long chaos run:
 *
 *   npm run test:chaos -- --runs 1000 --seed 42 --kills 20
 *
 * Options: --runs N (seeded delivery schedules), --seed S (base seed; every schedule's seed is printed
 * on failure), --kills K (SIGKILL restarts of a consumer process under load), --pauses P (SIGSTOP/SIGCONT
 * lease pauses), --rate R (share of faulted calls, default 0.08), --only delivery|crash|lease|bad-input,
 * --schedule SEED (re-run one schedule by its own seed, with an outbox). Uses DYNAMODB_ENDPOINT when set, else starts an
 * embedded DynamoDB Local. Exits 1 unless every row matched its fold and every event was accounted for.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoLocal, DynamoLocalDefaults, type DynamoLocal } from '../lib/local';
import { runBadInputCorpus } from './bad-input';
import { runCrashScenario } from './crash';
import { ALL_FAULTS } from './faults';
import { prepareDelivery, runSchedule } from './delivery';
import { runLeaseScenario } from './lease';
import { scheduleSeed } from './random';
import { ChaosSummary } from './summary';
import type { ClientConfig } from './world';

interface Args {
  runs: number;
  seed: number;
  kills: number;
  pauses: number;
  rate: number;
  only: string | undefined;
  schedule: number | undefined;
}

function parseArgs(argv: ReadonlyArray<string>): Args {
  const args: Args = { runs: 200, seed: Date.now() % 1_000_000, kills: 5, pauses: 2, rate: 0.08, only: undefined, schedule: undefined };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    const value = argv[i + 1];
    const number = () => {
      const n = Number(value);
      if (value === undefined || !Number.isFinite(n)) throw new Error(`${name} expects a number`);
      i++;
      return n;
    };
    switch (name) {
      case '--runs': args.runs = number(); break;
      case '--seed': args.seed = number(); break;
      case '--kills': args.kills = number(); break;
      case '--pauses': args.pauses = number(); break;
      case '--rate': args.rate = number(); break;
      case '--schedule': args.schedule = number(); break;
      case '--only': args.only = value; i++; break;
      default: throw new Error(`unknown argument ${String(name)}`);
    }
  }
  return args;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  let local: DynamoLocal | undefined;
  if (process.env['DYNAMODB_ENDPOINT'] === undefined) {
    local = await startDynamoLocal({ heapMb: 1024 });
    process.env['DYNAMODB_ENDPOINT'] = local.endpoint;
  }
  const config: ClientConfig = {
    endpoint: process.env['DYNAMODB_ENDPOINT'] as string,
    region: DynamoLocalDefaults.region,
    credentials: { ...DynamoLocalDefaults.credentials },
  };
  const client = new DynamoDBClient({ ...config, maxAttempts: 5 });
  const total = new ChaosSummary();
  const started = Date.now();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(`dynafold chaos: seed ${args.seed}, runs ${args.runs}, kills ${args.kills}, pauses ${args.pauses}, fault rate ${args.rate}`);
  try {
    const want = (part: string) => args.only === undefined || args.only === part;
    if (want('bad-input')) {
      const bad = await runBadInputCorpus(config, client);
      total.merge(bad);
      say(`bad-input corpus: ${bad.badInputKinds} kinds, ${bad.problems.length === 0 ? 'ok' : 'FAILED'}`);
    }
    if (want('delivery')) {
      let input = await prepareDelivery(config, client, { seed: args.seed });
      const seeds = args.schedule === undefined ? Array.from({ length: args.runs }, (_, run) => scheduleSeed(args.seed, run)) : [args.schedule];
      for (const [run, seed] of seeds.entries()) {
        // A fresh world every 250 schedules keeps the views table small.
        if (run > 0 && run % 250 === 0) input = await prepareDelivery(config, client, { seed: args.seed + run });
        const kinds = run % 2 === 0 ? ALL_FAULTS : [...ALL_FAULTS, 'lostResponse' as const];
        // Half the schedules write an outbox and relay it (with and without lost row-write answers).
        const outbox = args.schedule !== undefined || run % 4 === 1 || run % 4 === 2;
        const result = await runSchedule(input, { seed, faultRate: args.rate, kinds, outbox });
        total.merge(result);
        if (!result.ok) say(`schedule ${run} (seed ${seed}) FAILED: re-run with --only delivery --seed ${args.seed} --schedule ${seed}\n  ${result.problems.join('\n  ')}`);
        if ((run + 1) % 50 === 0) say(`  ${run + 1}/${seeds.length} schedules, ${Math.round((Date.now() - started) / 1000)} s`);
      }
    }
    if (want('crash') && args.kills > 0) {
      const crash = await runCrashScenario(config, client, { seed: args.seed, kills: args.kills, faultRate: args.rate, log: say });
      total.merge(crash);
    }
    if (want('lease') && args.pauses > 0) {
      for (let pause = 0; pause < args.pauses; pause++) {
        const lease = await runLeaseScenario(config, client, { seed: args.seed + pause, log: say });
        total.merge(lease);
      }
    }
  } finally {
    client.destroy();
    await local?.stop();
  }
  say('');
  say(total.table(`dynafold chaos summary (seed ${args.seed}, ${Math.round((Date.now() - started) / 1000)} s)`));
  return total.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
