import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { runBatches, type ChangeFeedBatch, type ChangeFeedSource } from 'dynafold/feed';
import { SimulatedStream, simulateStreams, type SimulationOptions } from '../support/streams-sim';
import { createStreamedTable, disableStream, streamsClient, waitFor, writeItems } from '../feed/support';
import { ChangeFeedConsumer, MemoryCheckpointStore } from 'dynafold/feed';

/** A streamed table on DynamoDB Local, its simulation, and a factory of clients plugged into it. */
export interface SimulatedWorld {
  readonly table: string;
  readonly streamArn: string;
  readonly simulation: SimulatedStream;
  /** A real Streams client answered by the simulation; destroyed by `close()`. */
  client(): DynamoDBStreamsClient;
  close(): void;
}

export async function simulatedWorld(client: DynamoDBClient, options: Omit<SimulationOptions, 'source' | 'streamArn'>): Promise<SimulatedWorld> {
  const { table, streamArn } = await createStreamedTable(client, 'sim');
  const clients: DynamoDBStreamsClient[] = [streamsClient()];
  const simulation = await SimulatedStream.create({ ...options, source: clients[0] as DynamoDBStreamsClient, streamArn });
  return {
    table,
    streamArn,
    simulation,
    client: () => {
      const plugged = simulateStreams(streamsClient(), simulation);
      clients.push(plugged);
      return plugged;
    },
    close: () => clients.forEach((c) => c.destroy()),
  };
}

/** What a feed needs to be quick here: short polls, describes and backoffs, small batches. */
/** Fast polling; a disabled stream is described again 300 ms after it drained (above the tests' listing lags) before the feed ends. */
export const quickFeed = {
  pollIntervalMs: 20,
  describeIntervalMs: 200,
  disabledSettleMs: 300,
  batchSize: 25,
  backoff: { initialMs: 5, maxMs: 50 },
} as const;

/** Partition keys `k00`…: enough of them to land in every shard. */
export function partitionKeys(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `k${String(i).padStart(2, '0')}`);
}

/** Writes items n = from…to-1 of every key, a round of all keys per n, `concurrency` puts at a time. */
export async function writeRounds(client: DynamoDBClient, table: string, keys: ReadonlyArray<string>, from: number, to: number): Promise<void> {
  for (let n = from; n < to; n++) {
    await Promise.all(keys.map((pk) => client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk }, n: { N: String(n) } } }))));
  }
}

/** One delivered record: its item, sequence number, shard, and place in the delivery order. */
export interface Delivery {
  readonly pk: string;
  readonly n: number;
  readonly sequenceNumber: string;
  readonly shardId: string;
  readonly index: number;
}

/** Every record a run delivered, in the order the handler saw them, with the checks the feed must pass. */
export class DeliveryLog {
  readonly deliveries: Delivery[] = [];

  constructor(private readonly simulation: SimulatedStream) {}

  add(batch: ChangeFeedBatch): Delivery[] {
    const added = batch.records.map((record) => {
      const sequenceNumber = record.dynamodb?.SequenceNumber as string;
      const delivery = {
        pk: record.dynamodb?.NewImage?.['pk']?.S as string,
        n: Number(record.dynamodb?.NewImage?.['n']?.N),
        sequenceNumber,
        shardId: this.simulation.shardOf(sequenceNumber) ?? '?',
        index: this.deliveries.length,
      };
      this.deliveries.push(delivery);
      return delivery;
    });
    // A batch is one shard's records.
    if (new Set(added.map((d) => d.shardId)).size > 1) throw new Error(`A batch of shard ${batch.shardId} mixed shards`);
    if (added.some((d) => d.shardId !== batch.shardId)) throw new Error(`A batch of shard ${batch.shardId} held another shard's records`);
    return added;
  }

  /** Per key, the item numbers in delivery order. */
  byKey(): Map<string, number[]> {
    const byKey = new Map<string, number[]>();
    for (const { pk, n } of this.deliveries) byKey.set(pk, [...(byKey.get(pk) ?? []), n]);
    return byKey;
  }

  /** Shards whose first record was delivered before the last record of their parent: must be none. */
  childrenBeforeParents(): string[] {
    const first = new Map<string, number>();
    const last = new Map<string, number>();
    for (const { shardId, index } of this.deliveries) {
      if (!first.has(shardId)) first.set(shardId, index);
      last.set(shardId, index);
    }
    const parents = new Map(this.simulation.lineage().map((shard) => [shard.shardId, shard.parentShardId]));
    const wrong: string[] = [];
    for (const [shardId, start] of first) {
      // Any ancestor with records delivered must have had them all delivered before.
      for (let ancestor = parents.get(shardId); ancestor !== undefined; ancestor = parents.get(ancestor)) {
        if ((last.get(ancestor) ?? -1) > start) wrong.push(`${shardId} before its ancestor ${ancestor}`);
      }
    }
    return wrong;
  }
}

/** `pk:n` of every item written for `keys` with n in [from, to). */
export function written(keys: ReadonlyArray<string>, from: number, to: number): string[] {
  return keys.flatMap((pk) => Array.from({ length: to - from }, (_, i) => `${pk}:${from + i}`));
}

/** Runs `feed` to its end, logging every batch in `log` and acknowledging it whole. */
export function deliverInto(feed: ChangeFeedSource, log: DeliveryLog): Promise<void> {
  return runBatches(feed, async (batch) => {
    log.add(batch);
    return { batchItemFailures: [] };
  });
}

/**
 * Writes one item per entry of `writes` (numbered per key from 0), then reads the stream with a feed of
 * batches of 3 until it has them all, disables the stream and waits for the feed to end. Returns the
 * log and how many items each key got.
 */
export async function writeAndDrain(
  client: DynamoDBClient,
  world: SimulatedWorld,
  writes: ReadonlyArray<string>,
): Promise<{ log: DeliveryLog; counts: Map<string, number> }> {
  const counts = new Map<string, number>();
  for (const pk of writes) {
    const n = counts.get(pk) ?? 0;
    await writeItems(client, world.table, pk, n, n + 1);
    counts.set(pk, n + 1);
  }
  const log = new DeliveryLog(world.simulation);
  const feed = new ChangeFeedConsumer({
    ...quickFeed,
    batchSize: 3,
    streamsClient: world.client(),
    streamArn: world.streamArn,
    checkpoints: new MemoryCheckpointStore(),
  });
  const run = deliverInto(feed, log);
  await waitFor(() => log.deliveries.length >= writes.length, 20_000, 'every record');
  await disableStream(client, world.table);
  await run;
  return { log, counts };
}
