/**
 * Crash and restart: a consumer process (runChangeFeed + DynamoCheckpointStore, faulty clients, every
 * projection: single-stream, event-keyed, multi-source and removing rows; the summaries and customer rows
 * with an outbox, relayed in the same process from the outbox's stream) is killed with SIGKILL at random
 * moments, K times, while a writer keeps appending (its client faulted too, transaction conflicts
 * included; appends carry idempotency keys, so a retried append never doubles). A kill lands in the
 * projections or in the relay, between a publish and its delete as often as not. Each time a new process
 * takes over the same lease owner's place. At the end the stream is disabled, the last process drains it,
 * stops its relay feed and drains the outbox with `drainAll`, and exits; every row must equal its fold, no
 * event may be applied twice, every event must have reached a side effect at least once (applied, or
 * already applied on a redelivery after the kill), and every applied event's message must have been
 * published at least once, first in order per row, with the outbox empty. Per projection and stream
 * instance, events are applied in version order across the processes. With `shards`, the consumers read
 * 32 simulated shards that split and roll over: every shard must end checkpointed as finished, and no
 * child's batch may come before its parent's last.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoCheckpointStore } from 'dynafold/feed';
import { injectFaults, quickRetries } from './faults';
import { checkPublications, outboxItems, type Publication } from './outbox';
import {
  CONSUMER_START_MS,
  consumerFaults,
  createCheckpointTable,
  disableStream,
  exitWithin,
  logLines,
  sleep,
  startConsumer,
  waitUntil,
  type Consumer,
} from './processes';
import { randomInt, seededRandom } from './random';
import { checkLineage, finalLineage, simulatedEvents, simulationFigures } from './simulated';
import { ChaosSummary } from './summary';
import {
  appendChunk,
  bind,
  checkRows,
  createTables,
  expectedOutboxIds,
  foldAccount,
  foldZones,
  readTruth,
  worldIds,
  type ClientConfig,
  type WorldIds,
} from './world';

export interface CrashOptions {
  readonly seed: number;
  readonly kills: number;
  readonly faultRate?: number;
  readonly orders?: number;
  readonly sensors?: number;
  readonly purchases?: number;
  readonly accounts?: number;
  /**
   * Reads the events through 32 simulated shards that split and roll over (`simulated.ts`), rebuilt from
   * the seed in each consumer process; the lineage is then checked too.
   */
  readonly shards?: boolean;
  /** Time between kills, picked at random in this range (ms). @defaultValue [300, 1500] */
  readonly killEveryMs?: readonly [number, number];
  readonly log?: (line: string) => void;
}

export async function runCrashScenario(config: ClientConfig, client: DynamoDBClient, options: CrashOptions): Promise<ChaosSummary> {
  const summary = new ChaosSummary();
  const say = options.log ?? (() => undefined);
  const random = seededRandom(options.seed);
  const tables = await createTables(client, 'crash', { outbox: true });
  const checkpointTable = await createCheckpointTable(client);
  const out = join(mkdtempSync(join(tmpdir(), 'dynafold-chaos-')), 'consumer.log');
  const suffix = `c${options.seed}`;
  const ids = worldIds({
    orders: options.orders ?? 6,
    sensors: options.sensors ?? 4,
    purchases: options.purchases ?? 4,
    programs: 2,
    accounts: options.accounts ?? 3,
  });
  const kinds = (Object.keys(ids) as Array<keyof WorldIds>).filter((kind) => ids[kind].length > 0);
  say(`crash: seed ${options.seed}, ${options.kills} kills, log ${out}`);

  // The writer: its own faulty client (conflicts included); appends with idempotency keys.
  const writerClient = new DynamoDBClient({ ...config, retryStrategy: quickRetries(2) });
  const writerFaults = injectFaults(writerClient, {
    seed: options.seed + 7,
    rate: options.faultRate ?? 0.08,
    kinds: ['throttle', 'internal', 'timeout', 'conflict', 'lostResponse'],
  });
  const writer = bind(writerClient, tables, suffix);
  const versions = new Map<string, number>();
  let writing = true;
  let appends = 0;
  const writerDone = (async () => {
    while (writing) {
      const kind = kinds[randomInt(random, 0, kinds.length - 1)] as keyof WorldIds;
      const id = ids[kind][randomInt(random, 0, ids[kind].length - 1)] as string;
      const instance = `${kind}#${id}`; // ids collide across kinds on purpose
      const version = versions.get(instance) ?? 0;
      const key = `${id}-${version}`;
      const chunkSeed = random();
      for (let attempt = 0; ; attempt++) {
        try {
          // The same chunk and key on every attempt: an append that did go through is returned, not doubled.
          const chunkRandom = seededRandom(Math.floor(chunkSeed * 2 ** 31));
          const next = await appendChunk(writer, kind, id, version, chunkRandom, key);
          versions.set(instance, next);
          appends++;
          break;
        } catch (error) {
          if (attempt > 50) throw error;
          await sleep(5);
        }
      }
      await sleep(randomInt(random, 2, 15));
    }
  })();

  const env = {
    DYNAMODB_ENDPOINT: config.endpoint,
    EVENTS_TABLE: tables.eventsTable,
    VIEWS_TABLE: tables.viewsTable,
    STREAM_ARN: tables.streamArn,
    CHECKPOINT_TABLE: checkpointTable,
    OUTBOX_TABLE: tables.outboxTable as string,
    OUTBOX_STREAM_ARN: tables.outboxStreamArn as string,
    OUT_FILE: out,
    FAULT_RATE: String(options.faultRate ?? 0.08),
    MODEL_SUFFIX: suffix,
    LEASE_OWNER: 'crash-consumer',
    HANDLER_DELAY_MS: '5',
    ...(options.shards === true ? { SIM_SEED: String(options.seed) } : {}),
  };
  const [minGap, maxGap] = options.killEveryMs ?? [300, 1500];
  let consumer: Consumer | undefined;
  try {
    for (let kill = 0; kill < options.kills; kill++) {
      consumer = startConsumer({ ...env, FAULT_SEED: String(options.seed * 31 + kill) });
      const linesBefore = logLines(out).length;
      // Let it do some work first, then kill it at a random moment.
      await waitUntil(() => logLines(out).length > linesBefore, CONSUMER_START_MS, `consumer ${kill} to process something`);
      await sleep(randomInt(random, minGap, maxGap));
      consumer.child.kill('SIGKILL');
      const exit = await exitWithin(consumer, 10_000, `killed consumer ${kill}`);
      if (exit.signal !== 'SIGKILL')
        summary.problem(`crash seed ${options.seed}: consumer ${kill} ended before its kill (${exit.code}): ${exit.stderr.slice(-500)}`);
      else summary.crashes++;
    }
    writing = false;
    await writerDone;
    await disableStream(client, tables.eventsTable);
    consumer = startConsumer({ ...env, FAULT_SEED: String(options.seed * 31 + options.kills) });
    const exit = await exitWithin(consumer, 300_000, 'the last consumer');
    if (exit.code !== 0) summary.problem(`crash seed ${options.seed}: the last consumer exited ${exit.code}: ${exit.stderr.slice(-800)}`);
  } finally {
    writing = false;
    consumer?.child.kill('SIGKILL');
    await writerDone.catch((error: unknown) => summary.problem(`crash seed ${options.seed}: writer failed: ${String(error)}`));
    writerClient.destroy();
  }

  // Verification against the store.
  const clean = bind(client, tables, suffix);
  const truth = await readTruth(clean, ids);
  const check = await checkRows(clean, truth);
  summary.rowsChecked += check.rows;
  summary.multiSourceRows += check.multiSourceRows;
  summary.removedRows += check.removedRows;
  summary.divergedRows += check.diverged.length;
  for (const row of check.diverged) summary.problem(`crash seed ${options.seed}: diverged ${row}`);

  const applied = new Map<string, number>();
  const reached = new Set<string>();
  // Per row and stream instance feeding it, the newest version applied so far: each must be applied after it.
  const newestApplied = new Map<string, number>();
  for (const [kind, projection, id, , row] of logLines(out)) {
    if (kind !== 'A' && kind !== 'R' && kind !== 'J' && kind !== 'K') continue;
    const key = `${projection} ${id}`;
    reached.add(key);
    if (kind !== 'A') continue;
    applied.set(key, (applied.get(key) ?? 0) + 1);
    const [instance = '', version = ''] = (id ?? '').split('@');
    const source = `${projection} ${row} ${instance}`;
    const newest = newestApplied.get(source) ?? 0;
    if (Number(version) <= newest) summary.problem(`crash seed ${options.seed}: ${key} applied to row ${row} after version ${newest}`);
    newestApplied.set(source, Math.max(newest, Number(version)));
  }
  if (options.shards === true) await checkShards(config, client, summary, { seed: options.seed, streamArn: tables.streamArn, checkpointTable, out });
  for (const [key, n] of applied) {
    if (n > 1) {
      summary.doubleApplied++;
      summary.problem(`crash seed ${options.seed}: ${key} applied ${n} times`);
    }
  }
  for (const [orderId, events] of truth.orders) {
    for (const event of events) {
      if (!reached.has(`summaries Order#${orderId}@${event.version}`)) {
        summary.lostEvents++;
        summary.problem(`crash seed ${options.seed}: Order ${orderId}@${event.version} never reached`);
      }
    }
  }
  for (const [sensorId, events] of truth.sensors) {
    const { rejected } = foldZones(sensorId, events);
    for (const event of events) {
      if (event.type === 'SensorNote') continue;
      const key = `zones Sensor#${sensorId}@${event.version}`;
      if (!reached.has(key)) {
        summary.lostEvents++;
        summary.problem(`crash seed ${options.seed}: Sensor ${sensorId}@${event.version} never reached`);
      } else if (rejected.has(event.version) && applied.has(key)) {
        summary.doubleApplied++;
        summary.problem(`crash seed ${options.seed}: Sensor ${sensorId}@${event.version} must be rejected but was applied`);
      }
    }
  }
  const mustReach = (projection: string, id: string, what: string) => {
    if (reached.has(`${projection} ${id}`)) return;
    summary.lostEvents++;
    summary.problem(`crash seed ${options.seed}: ${what} ${id} never reached`);
  };
  for (const events of [...truth.purchases.values(), ...truth.programs.values()]) {
    for (const event of events) mustReach('customers', `${event.streamName}#${event.streamId}@${event.version}`, event.streamName);
  }
  for (const [accountId, events] of truth.accounts) {
    const fold = foldAccount(accountId, events);
    for (const event of events) {
      const id = `Account#${accountId}@${event.version}`;
      mustReach('accounts', id, 'Account');
      if (!fold.applied.has(event.version) && applied.has(`accounts ${id}`)) {
        summary.doubleApplied++;
        summary.problem(`crash seed ${options.seed}: Account ${id} (${event.type}) must be skipped but was applied`);
      }
    }
  }

  // The outbox: every applied event's message published, first in order per row; nothing left.
  const lines = logLines(out);
  const published: Publication[] = lines.filter(([kind]) => kind === 'M').map(([, , id, row]) => ({ id: id as string, row: row as string }));
  if (!lines.some(([kind]) => kind === 'D')) summary.problem(`crash seed ${options.seed}: the last consumer never finished draining the outbox`);
  for (const [, pid, name] of lines.filter(([kind]) => kind === 'X'))
    summary.problem(`crash seed ${options.seed}: the relay feed of ${pid} failed with ${name}`);
  checkPublications(
    summary,
    `crash seed ${options.seed}`,
    published,
    expectedOutboxIds(truth),
    await outboxItems(client, tables.outboxTable as string),
  );

  summary.events += truth.events;
  summary.addFaults(writerFaults.injected);
  summary.addFaults(consumerFaults(logLines(out)));
  say(
    `crash${options.shards === true ? ` on ${summary.shardsOpened} simulated shards (${summary.shardSplits} splits, ${summary.shardRollovers} rollovers)` : ''}: ${summary.crashes} kills, ${appends} appends, ${truth.events} events, ${check.rows} rows, ${check.diverged.length} diverged, ${published.length} published`,
  );
  return summary;
}

/** The simulated shards after the run: rebuilt from the seed here too, and checked against the checkpoints and the consumers' batches. */
async function checkShards(
  config: ClientConfig,
  client: DynamoDBClient,
  summary: ChaosSummary,
  run: { seed: number; streamArn: string; checkpointTable: string; out: string },
): Promise<void> {
  const stream = await simulatedEvents(config, run.streamArn, run.seed, 0);
  try {
    const lineage = await finalLineage(stream);
    const checkpoints = await new DynamoCheckpointStore({ client, table: run.checkpointTable }).getCheckpoints({
      consumer: 'chaos',
      streamArn: run.streamArn,
    });
    const batches = logLines(run.out)
      .filter(([kind]) => kind === 'S')
      .map(([, , shardId]) => ({ shardId: shardId ?? '' }));
    for (const problem of checkLineage(lineage, checkpoints, batches)) summary.problem(`crash seed ${run.seed}: ${problem}`);
    const figures = simulationFigures(stream.counts());
    summary.shardsOpened += lineage.length;
    summary.shardSplits += figures.splits;
    summary.shardRollovers += figures.rollovers;
  } finally {
    stream.close();
  }
}
