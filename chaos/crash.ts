/**
 * Crash and restart: a consumer process (runChangeFeed + DynamoCheckpointStore, faulty clients) is
 * killed with SIGKILL at random moments, K times, while a writer keeps appending (its client faulted
 * too, transaction conflicts included; appends carry idempotency keys, so a retried append never doubles).
 * Each time a new process takes over the same lease owner's place. At the end the stream is disabled,
 * the last process drains it and exits; every row must equal its fold, no event may be applied twice,
 * and every event must have reached a side effect at least once (applied, or already applied on a
 * redelivery after the kill).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { injectFaults, quickRetries } from './faults';
import { consumerFaults, createCheckpointTable, disableStream, exitWithin, logLines, sleep, startConsumer, waitUntil, type Consumer } from './processes';
import { randomInt, seededRandom } from './random';
import { ChaosSummary } from './summary';
import { appendOrderChunk, appendSensorChunk, bind, checkRows, createTables, foldZones, readTruth, type ClientConfig } from './world';

export interface CrashOptions {
  readonly seed: number;
  readonly kills: number;
  readonly faultRate?: number;
  readonly orders?: number;
  readonly sensors?: number;
  /** Time between kills, picked at random in this range (ms). @defaultValue [300, 1500] */
  readonly killEveryMs?: readonly [number, number];
  readonly log?: (line: string) => void;
}

export async function runCrashScenario(config: ClientConfig, client: DynamoDBClient, options: CrashOptions): Promise<ChaosSummary> {
  const summary = new ChaosSummary();
  const say = options.log ?? (() => undefined);
  const random = seededRandom(options.seed);
  const tables = await createTables(client, 'crash');
  const checkpointTable = await createCheckpointTable(client);
  const out = join(mkdtempSync(join(tmpdir(), 'dynafold-chaos-')), 'consumer.log');
  const suffix = `c${options.seed}`;
  const orderIds = Array.from({ length: options.orders ?? 6 }, (_, i) => `o-${i}`);
  const sensorIds = Array.from({ length: options.sensors ?? 4 }, (_, i) => `s-${i}`);
  say(`crash: seed ${options.seed}, ${options.kills} kills, log ${out}`);

  // The writer: its own faulty client (conflicts included); appends with idempotency keys.
  const writerClient = new DynamoDBClient({ ...config, retryStrategy: quickRetries(2) });
  const writerFaults = injectFaults(writerClient, { seed: options.seed + 7, rate: options.faultRate ?? 0.08, kinds: ['throttle', 'internal', 'timeout', 'conflict'] });
  const writer = bind(writerClient, tables, suffix);
  const versions = new Map<string, number>();
  let writing = true;
  let appends = 0;
  const writerDone = (async () => {
    while (writing) {
      const sensor = random() < 0.4;
      const id = sensor ? (sensorIds[randomInt(random, 0, sensorIds.length - 1)] as string) : (orderIds[randomInt(random, 0, orderIds.length - 1)] as string);
      const version = versions.get(id) ?? 0;
      const key = `${id}-${version}`;
      const chunkSeed = random();
      for (let attempt = 0; ; attempt++) {
        try {
          // The same chunk and key on every attempt: an append that did go through is returned, not doubled.
          const chunkRandom = seededRandom(Math.floor(chunkSeed * 2 ** 31));
          const next = sensor ? await appendSensorChunk(writer.sensors, id, version, chunkRandom, key) : await appendOrderChunk(writer.orders, id, version, chunkRandom, key);
          versions.set(id, next);
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
    OUT_FILE: out,
    FAULT_RATE: String(options.faultRate ?? 0.08),
    MODEL_SUFFIX: suffix,
    LEASE_OWNER: 'crash-consumer',
    HANDLER_DELAY_MS: '5',
  };
  const [minGap, maxGap] = options.killEveryMs ?? [300, 1500];
  let consumer: Consumer | undefined;
  try {
    for (let kill = 0; kill < options.kills; kill++) {
      consumer = startConsumer({ ...env, FAULT_SEED: String(options.seed * 31 + kill) });
      const linesBefore = logLines(out).length;
      // Let it do some work first, then kill it at a random moment.
      await waitUntil(() => logLines(out).length > linesBefore, 30_000, `consumer ${kill} to process something`);
      await sleep(randomInt(random, minGap, maxGap));
      consumer.child.kill('SIGKILL');
      const exit = await exitWithin(consumer, 10_000, `killed consumer ${kill}`);
      if (exit.signal !== 'SIGKILL') summary.problem(`crash seed ${options.seed}: consumer ${kill} ended before its kill (${exit.code}): ${exit.stderr.slice(-500)}`);
      else summary.crashes++;
    }
    writing = false;
    await writerDone;
    await disableStream(client, tables.eventsTable);
    consumer = startConsumer({ ...env, FAULT_SEED: String(options.seed * 31 + options.kills) });
    const exit = await exitWithin(consumer, 120_000, 'the last consumer');
    if (exit.code !== 0) summary.problem(`crash seed ${options.seed}: the last consumer exited ${exit.code}: ${exit.stderr.slice(-800)}`);
  } finally {
    writing = false;
    consumer?.child.kill('SIGKILL');
    await writerDone.catch((error: unknown) => summary.problem(`crash seed ${options.seed}: writer failed: ${String(error)}`));
    writerClient.destroy();
  }

  // Verification against the store.
  const clean = bind(client, tables, suffix);
  const truth = await readTruth(clean, orderIds, sensorIds);
  const check = await checkRows(clean, truth);
  summary.rowsChecked += check.rows;
  summary.divergedRows += check.diverged.length;
  for (const row of check.diverged) summary.problem(`crash seed ${options.seed}: diverged ${row}`);

  const applied = new Map<string, number>();
  const reached = new Set<string>();
  for (const [kind, projection, id] of logLines(out)) {
    if (kind !== 'A' && kind !== 'R' && kind !== 'J') continue;
    const key = `${projection} ${id}`;
    reached.add(key);
    if (kind === 'A') applied.set(key, (applied.get(key) ?? 0) + 1);
  }
  for (const [key, n] of applied) {
    if (n > 1) {
      summary.doubleApplied++;
      summary.problem(`crash seed ${options.seed}: ${key} applied ${n} times`);
    }
  }
  for (const [orderId, events] of truth.orders) {
    for (const event of events) {
      if (!reached.has(`summaries ${orderId}@${event.version}`)) {
        summary.lostEvents++;
        summary.problem(`crash seed ${options.seed}: Order ${orderId}@${event.version} never reached`);
      }
    }
  }
  for (const [sensorId, events] of truth.sensors) {
    const { rejected } = foldZones(sensorId, events);
    for (const event of events) {
      if (event.type === 'SensorNote') continue;
      const key = `zones ${sensorId}@${event.version}`;
      if (!reached.has(key)) {
        summary.lostEvents++;
        summary.problem(`crash seed ${options.seed}: Sensor ${sensorId}@${event.version} never reached`);
      } else if (rejected.has(event.version) && applied.has(key)) {
        summary.doubleApplied++;
        summary.problem(`crash seed ${options.seed}: Sensor ${sensorId}@${event.version} must be rejected but was applied`);
      }
    }
  }
  summary.events += truth.events;
  summary.addFaults(writerFaults.injected);
  summary.addFaults(consumerFaults(logLines(out)));
  say(`crash: ${summary.crashes} kills, ${appends} appends, ${truth.events} events, ${check.rows} rows, ${check.diverged.length} diverged`);
  return summary;
}
