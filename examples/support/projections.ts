/**
 * The quickstart's projection part: the events table's stream projected into two read models, one by
 * the change feed (`runChangeFeed`, as a service would), one by a simulation of Lambda's delivery.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { Logger } from 'dynafold';
import { lambdaHandler } from 'dynafold/lambda';
import { eventId, startProjectionFeed } from './feed-projection';
import { instrumentRowTable } from './instrument';
import { deliverLikeLambda } from './lambda-delivery';
import {
  addItem,
  orderStream,
  orderSummaries,
  orderSummaryProjection,
  placeOrder,
  shipOrder,
  type OrderEvent,
  type OrderStream,
} from './orders';
import { seededRandom } from './random';
import { readStreamRecords, toLambdaRecord } from 'dynafold/local';

/** What the handler logs of a row that failed: its key and the event it failed at. */
interface RowFailure {
  readonly key?: unknown;
  readonly event?: {
    readonly streamId?: string;
    readonly version?: number;
    readonly type?: string;
  };
}

/**
 * The handler's warnings as lines of the quickstart's output. Here every failed row is an injected
 * fault, so it is told as one, rather than as the JSON warning a Lambda function logs by default.
 */
function injectedFaultLogger(): Logger {
  return {
    warn: (message: unknown, details: unknown) => {
      const { key, event } = (details ?? {}) as RowFailure;
      const at =
        event === undefined
          ? ''
          : ` at v${event.version} ${event.type ?? ''}`.trimEnd();
      console.log(
        `  fault on purpose: row ${JSON.stringify(key)} failed${at}; ` +
          'its records are reported for a redelivery',
      );
      if (
        typeof message !== 'string' ||
        !message.startsWith('row failed')
      )
        console.log(`    (${String(message)})`);
    },
  };
}

export interface ProjectionContext {
  readonly client: DynamoDBClient;
  readonly streams: DynamoDBStreamsClient;
  readonly clientConfig: ConstructorParameters<
    typeof DynamoDBClient
  >[0] &
    object;
  readonly Orders: OrderStream;
  readonly tables: {
    readonly events: string;
    readonly views: string;
    readonly checkpoints: string;
  };
  readonly streamArn: string;
}

/** Read-model names: both models live in the views table, apart by their key prefix. */
export const FEED_MODEL = 'OrderSummaryByFeed';
export const LAMBDA_MODEL = 'OrderSummaryByLambda';

const FEED_BATCH_SIZE = 25;
const LAMBDA_BATCH_SIZE = 10;
const LIVE_ORDERS = ['live-1', 'live-2', 'live-3'];

export function percentile(
  values: ReadonlyArray<number>,
  p: number,
): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[
      Math.min(
        sorted.length - 1,
        Math.max(0, Math.ceil((p / 100) * sorted.length) - 1),
      )
    ] ?? 0
  );
}

const ms = (value: number) => `${value.toFixed(0)} ms`;
const count = (n: number, one: string, many = `${one}s`) =>
  `${n} ${n === 1 ? one : many}`;

/**
 * The main path: a ChangeFeedConsumer with DynamoDB checkpoints, run into the projection by
 * `runChangeFeed`. Catches up with the stream, then times a few live commands, then stops.
 * Returns every event the feed's batches applied, and the live orders' ids.
 */
export async function projectByFeed(
  context: ProjectionContext,
  eventsInStore: number,
): Promise<{ applied: OrderEvent[]; liveOrders: string[] }> {
  const { client, streams, Orders, tables, streamArn } = context;
  const traffic = instrumentRowTable(client, tables.views);
  const projection = orderSummaryProjection(
    Orders,
    orderSummaries(client, tables.views, FEED_MODEL),
  );
  console.log(
    `  ChangeFeedConsumer (consumer "quickstart-summaries", DynamoCheckpointStore on ${tables.checkpoints}, pollIntervalMs 100, batchSize ${FEED_BATCH_SIZE})`,
  );

  const started = performance.now();
  const { feed, tally, running } = startProjectionFeed({
    client,
    streams,
    streamArn,
    checkpointTable: tables.checkpoints,
    projection,
    batchSize: FEED_BATCH_SIZE,
    progress: (batch, tally, feed) => {
      if (tally.appliedAt.size > eventsInStore) return; // the live phase reports itself
      const shard = feed
        .status()
        .shards.find(
          (candidate) => candidate.shardId === batch.shardId,
        );
      console.log(
        `  batch ${String(tally.batches).padStart(2)}  ${String(batch.records.length).padStart(3)} records  ` +
          `${String(tally.rowsWritten).padStart(3)} row writes so far  applied ${String(tally.appliedAt.size).padStart(3)}/${eventsInStore} events  ` +
          `lag ${shard?.lagRecords ?? 0} records (${shard?.lagMs ?? 0} ms)  at ${ms(performance.now() - started)}`,
      );
    },
  });

  await tally.until(
    () => tally.appliedAt.size >= eventsInStore,
    20_000,
    'the feed to apply every stored event',
  );
  const caughtUp = performance.now() - started;
  console.log(
    `  caught up: ${tally.appliedAt.size} events in ${ms(caughtUp)} (${tally.batches} batches, ${tally.records} records, ` +
      `${tally.rowsWritten} row writes, ${tally.failedRows} failed rows, ${traffic.lostRaces} lost races)`,
  );

  // Live: one command at a time, each timed from the call that appends to the batch that wrote its row.
  const latencies: number[] = [];
  const commands = LIVE_ORDERS.flatMap((orderId) => [
    { orderId, decider: placeOrder('live') },
    { orderId, decider: addItem('tea', 4.5) },
    { orderId, decider: shipOrder() },
  ]);
  for (const { orderId, decider } of commands) {
    const sent = performance.now();
    const { events } = await Orders.execute(orderId, decider);
    const ids = events.map(eventId);
    await tally.until(
      () => ids.every((id) => tally.appliedAt.has(id)),
      10_000,
      `${ids.join(', ')} to be projected`,
    );
    latencies.push(
      Math.max(...ids.map((id) => tally.appliedAt.get(id) ?? 0)) - sent,
    );
  }
  console.log(
    `  live: ${commands.length} commands on ${LIVE_ORDERS.length} new orders while the feed runs; ` +
      `append -> row updated p50 ${ms(percentile(latencies, 50))}, max ${ms(Math.max(...latencies))}`,
  );

  await feed.stop();
  await running;
  const status = feed.status();
  const shards = status.shards
    .map((shard) => `${shard.shardId} at ${shard.checkpoint ?? '-'}`)
    .join(', ');
  console.log(
    `  stopped: state ${status.state}, lease released, checkpoints: ${shards}`,
  );
  return { applied: tally.applied, liveOrders: LIVE_ORDERS };
}

/**
 * Lambda, simulated: the real stream records (read with the Streams API) in Lambda's JSON shape,
 * delivered shuffled, partly twice, in batches on 10 concurrent lanes, through `lambdaHandler`.
 * A few row reads fail on purpose, so that rows fail and lanes retry from the reported record.
 */
export async function projectByLambda(
  context: ProjectionContext,
  seed: number,
): Promise<OrderEvent[]> {
  const { streams, tables, streamArn, clientConfig } = context;
  const readStarted = performance.now();
  const records = await readStreamRecords(streams, streamArn);
  const region =
    typeof clientConfig.region === 'string'
      ? clientConfig.region
      : 'us-east-1';
  const lambdaRecords = records.map((record) =>
    toLambdaRecord(record, { streamArn, region }),
  );
  const inserts = records.filter(
    (record) =>
      record.eventName === 'INSERT' &&
      record.dynamodb?.NewImage?.['_df'] !== undefined,
  ).length;
  console.log(
    `  read ${records.length} records (${inserts} event INSERTs, ${records.length - inserts} of other items, which the decoder skips) with DescribeStream, ` +
      `GetShardIterator TRIM_HORIZON and GetRecords in ${ms(performance.now() - readStarted)}; as Lambda JSON, binary in base64`,
  );

  // Its own client, so that the injected faults touch this model only.
  const client = new DynamoDBClient(clientConfig);
  try {
    const faultRate = 0.1;
    const traffic = instrumentRowTable(client, tables.views, {
      rate: faultRate,
      random: seededRandom(seed + 1),
    });
    const projection = orderSummaryProjection(
      orderStream(client, tables.events),
      orderSummaries(client, tables.views, LAMBDA_MODEL),
    );
    const applied: OrderEvent[] = [];
    let rowWrites = 0;
    let alreadyApplied = 0;
    let failedRows = 0;
    console.log(
      `  ${faultRate * 100}% of row reads fail on purpose (an injected ` +
        'fault): each failed row is a line below, and Lambda delivers ' +
        'its records again',
    );
    const handler = lambdaHandler({
      projections: [projection],
      logger: injectedFaultLogger(),
      onBatch: (result) => {
        for (const outcome of result.outcomes[projection.name] ?? []) {
          if (outcome.status !== 'applied') {
            failedRows++;
            continue;
          }
          if (outcome.applied.length > 0) rowWrites++;
          alreadyApplied += outcome.alreadyApplied.length;
          applied.push(...outcome.applied);
        }
      },
    });

    const stats = await deliverLikeLambda(
      lambdaRecords,
      handler,
      seededRandom(seed),
      {
        lanes: 10,
        batchSize: LAMBDA_BATCH_SIZE,
        duplicateRate: 0.2,
        maxAttempts: 10,
      },
    );
    console.log(
      `  delivery: ${stats.records} records + ${stats.duplicates} duplicates, shuffled, in ${stats.batches} batches of 1-${LAMBDA_BATCH_SIZE} ` +
        `on ${stats.lanes} concurrent lanes (ParallelizationFactor 10)`,
    );
    console.log(
      `  faults: ${count(traffic.faults, 'row read')} failed on purpose (${faultRate * 100}% of them); ${count(failedRows, 'row')} failed, ` +
        `${count(stats.reported, 'record')} reported in batchItemFailures`,
    );
    console.log(
      `  invocations: ${stats.invocations}, of which ${count(stats.retries, 'retry', 'retries')} from the first reported record; ` +
        `${count(stats.gaveUp, 'batch', 'batches')} given up`,
    );
    console.log(
      `  applied: ${applied.length} events in ${rowWrites} row writes; ${alreadyApplied} found already applied ` +
        `(duplicates, retries, events a gap read applied first); ${count(traffic.lostRaces, 'lost race')}, re-read and retried`,
    );
    console.log(
      `  timings: ${ms(stats.ms)} in all, ${((applied.length / stats.ms) * 1000).toFixed(0)} events/s; ` +
        `invocation p50 ${ms(percentile(stats.invocationMs, 50))}, p95 ${ms(percentile(stats.invocationMs, 95))}`,
    );
    return applied;
  } finally {
    client.destroy();
  }
}
