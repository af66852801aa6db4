/**
 * The `shards` world: the change feed on an AWS-shaped stream. DynamoDB Local's stream of the chaos world
 * (orders, sensors, purchases and loyalty, accounts) is re-served over 32 simulated shards that roll over
 * and split while a writer appends, with the Streams API's faults (see `simulated.ts`). Consumers (runChangeFeed + DynamoCheckpointStore, every projection) are stopped
 * at random moments and replaced, the next one waiting on the lease while the last still holds it
 * (failover). At the end the stream is disabled and the last consumer drains it. Every row must equal its
 * fold, no event may be applied twice, every event must have reached its projection, and every shard of
 * the lineage must be checkpointed as finished. The consumer started at the last restart stalls its lease
 * renewals past the lease: it must end with LeaseLostError, and the one started in its place drains.
 */
import { type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ChangeFeedConsumer,
  DynamoCheckpointStore,
  LeaseLostError,
  runChangeFeed,
  type FeedKey,
  type LeaseRequest,
  type LeaseResult,
} from 'dynafold/feed';
import { createCheckpointTable, disableStream, sleep } from './processes';
import { randomInt, seededRandom } from './random';
import { checkLineage, simulatedEvents, simulationFigures, type ShardBatch } from './simulated';
import { ChaosSummary } from './summary';
import { bind, checkRows, createTables, readTruth, worldIds, writeWorkload, type ClientConfig, type WorldIds } from './world';

const LEASE_MS = 5_000;

/**
 * A checkpoint store on a host that stalls before each lease renewal for longer than the lease lasts
 * (a long GC, a starved event loop): its consumer must end with LeaseLostError, acknowledging nothing
 * after its lease lapsed, and the one that takes over goes on from its checkpoints.
 */
class StalledRenewals extends DynamoCheckpointStore {
  override async renewLease(key: FeedKey, request: LeaseRequest): Promise<LeaseResult> {
    await sleep(LEASE_MS + 500);
    return super.renewLease(key, request);
  }
}

/** Consumers that may lose their lease in a row while draining before the scenario gives up. */
const MAX_DRAIN_LAPSES = 5;

export interface ShardsOptions {
  readonly seed: number;
  /** Consumers replaced during the run. @defaultValue 3 */
  readonly restarts?: number;
  readonly faultRate?: number;
  readonly log?: (line: string) => void;
}

export async function runShardsScenario(config: ClientConfig, client: DynamoDBClient, options: ShardsOptions): Promise<ChaosSummary> {
  const summary = new ChaosSummary();
  const say = options.log ?? (() => undefined);
  const name = `shards seed ${options.seed}`;
  const random = seededRandom(options.seed);
  const rate = options.faultRate ?? 0.08;
  const tables = await createTables(client, 'shards');
  const checkpointTable = await createCheckpointTable(client);
  const suffix = `s${options.seed}`;
  const stream = await simulatedEvents(config, tables.streamArn, options.seed, rate);
  const ids: WorldIds = worldIds({ orders: 12, sensors: 6, purchases: 6, programs: 2, accounts: 4 });
  const bound = bind(client, tables, suffix);
  const applied = new Map<string, number>();
  const reached = new Set<string>();
  const batches: ShardBatch[] = [];
  let consumer = 0;
  const started: ChangeFeedConsumer[] = [];

  const restarts = options.restarts ?? 3;
  const startConsumer = () => {
    // The consumer started at the last restart stalls its lease renewals.
    const Store = consumer === restarts ? StalledRenewals : DynamoCheckpointStore;
    const feed = new ChangeFeedConsumer({
      streamsClient: stream.client(),
      // The simulation lists a new shard up to 300 ms late.
      disabledSettleMs: 1_000,
      streamArn: tables.streamArn,
      consumer: 'shards',
      checkpoints: new Store({ client, table: checkpointTable }),
      pollIntervalMs: 20,
      describeIntervalMs: 250,
      batchSize: 25,
      retry: { backoff: { initialMs: 5, maxMs: 100 } },
      lease: { durationMs: LEASE_MS, renewEveryMs: 1_000, onHeld: 'wait', owner: `shards-${consumer++}` },
    });
    const run = runChangeFeed(feed, {
      projections: bound.projections,
      onBatch: (result, batch) => {
        batches.push({ shardId: batch.shardId });
        for (const [projection, outcomes] of Object.entries(result.outcomes)) {
          for (const outcome of outcomes) {
            const ids = (events: ReadonlyArray<{ streamName: string; streamId: string; version: number }>) =>
              events.map((e) => `${projection} ${e.streamName}#${e.streamId}@${e.version}`);
            for (const id of ids(outcome.applied)) {
              applied.set(id, (applied.get(id) ?? 0) + 1);
              reached.add(id);
            }
            if (outcome.status !== 'applied') continue;
            for (const id of [...ids(outcome.alreadyApplied), ...ids(outcome.skipped), ...ids(outcome.rejected.map((r) => r.event))]) reached.add(id);
          }
        }
      },
    });
    // A run can end while the scenario sleeps: its rejection is awaited later, never left unhandled.
    run.catch(() => undefined);
    started.push(feed);
    return { feed, run };
  };

  /**
   * Waits for a consumer's run to end. A consumer whose lease lapsed (its renewals stalled on purpose, or a
   * host too busy to renew) ends with LeaseLostError, as it must: counted, and reported as 'lapsed' so that the caller can
   * start another, as a service's restart policy would. Any other error is the scenario's failure.
   */
  const ended = async (consumer: { run: Promise<void> }): Promise<'ended' | 'lapsed'> => {
    try {
      await consumer.run;
      return 'ended';
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      summary.leaseLapses++;
      say(`${name}: a consumer's lease lapsed (${error.message}); another takes over`);
      return 'lapsed';
    }
  };

  let current = startConsumer();
  const writer = writeWorkload(bound, ids, 6, seededRandom(options.seed + 1));
  writer.catch(() => undefined);
  try {
    for (let restart = 0; restart < restarts; restart++) {
      await sleep(randomInt(random, 300, 1_200));
      // The next consumer waits on the lease; stopping this one releases it: a failover mid-lineage.
      const next = startConsumer();
      await current.feed.stop();
      await ended(current);
      summary.feedRestarts++;
      current = next;
    }
    await writer;
    // The consumer whose renewals stall loses its lease while the stream is open, maybe mid-batch.
    if ((await ended(current)) !== 'lapsed') throw new Error('the consumer whose lease renewals stall ended without losing its lease');
    current = startConsumer();
    await disableStream(client, tables.eventsTable);
    // The next drains the disabled stream; one whose lease lapsed on a busy host is replaced until one does.
    for (let lapses = 0; (await ended(current)) === 'lapsed'; lapses++) {
      if (lapses === MAX_DRAIN_LAPSES) throw new Error(`${lapses} consumers in a row lost their lease before draining the stream`);
      current = startConsumer();
    }
  } catch (error) {
    summary.problem(`${name}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  } finally {
    // Whatever ended the scenario, no consumer is left reading (one started for a failover included).
    await Promise.all(started.map((feed) => feed.stop()));
    await writer.catch(() => undefined);
    stream.close();
  }

  const truth = await readTruth(bound, ids);
  const check = await checkRows(bound, truth);
  summary.runs++;
  summary.events += truth.events;
  summary.rowsChecked += check.rows;
  summary.multiSourceRows += check.multiSourceRows;
  summary.removedRows += check.removedRows;
  summary.divergedRows += check.diverged.length;
  for (const row of check.diverged) summary.problem(`${name}: diverged ${row}`);
  for (const [id, n] of applied) {
    if (n <= 1) continue;
    summary.doubleApplied++;
    summary.problem(`${name}: ${id} applied ${n} times`);
  }
  const mustReach = (projection: string, events: ReadonlyArray<{ streamName: string; streamId: string; version: number; type: string }>) => {
    for (const event of events) {
      if (event.type === 'SensorNote') continue;
      if (reached.has(`${projection} ${event.streamName}#${event.streamId}@${event.version}`)) continue;
      summary.lostEvents++;
      summary.problem(`${name}: ${event.streamName}#${event.streamId}@${event.version} never reached ${projection}`);
    }
  };
  for (const events of truth.orders.values()) mustReach('summaries', events);
  for (const events of truth.sensors.values()) mustReach('zones', events);
  for (const events of [...truth.purchases.values(), ...truth.programs.values()]) mustReach('customers', events);
  for (const events of truth.accounts.values()) mustReach('accounts', events);

  const checkpoints = await new DynamoCheckpointStore({ client, table: checkpointTable }).getCheckpoints({
    consumer: 'shards',
    streamArn: tables.streamArn,
  });
  const lineage = stream.simulation.lineage();
  for (const problem of checkLineage(lineage, checkpoints, batches)) summary.problem(`${name}: ${problem}`);

  const figures = simulationFigures(stream.counts());
  summary.addFaults(figures.faults);
  summary.shardsOpened += lineage.length;
  summary.shardSplits += figures.splits;
  summary.shardRollovers += figures.rollovers;
  say(
    `${name}: ${lineage.length} shards (${figures.splits} splits, ${figures.rollovers} rollovers), ${summary.feedRestarts} restarts, ` +
      `${truth.events} events, ${check.rows} rows, ${check.diverged.length} diverged, ${summary.lostEvents} lost, ${summary.doubleApplied} double-applied`,
  );
  return summary;
}
