/**
 * The AWS-shaped stream the chaos suite reads: DynamoDB Local's stream of the events table re-served by
 * the simulated Streams endpoint (`__tests__/support/streams-sim`, see its BEHAVIOURS.md) over 32 shards
 * that roll over and split as records come in, with throttling, internal errors, empty pages, late
 * listings, paged describes and short-lived iterators. Its shards follow from the seed and the records
 * alone, so every process that builds it with the same seed sees the same lineage with the same shard ids:
 * a consumer process killed and started again finds its checkpoints' shards where it left them.
 */
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import { SimulatedStream, simulateStreams } from '../__tests__/support/streams-sim';
import type { ClientConfig } from './world';

/** A simulated events stream, its source client and the clients plugged into it; `close` destroys them all. */
export interface SimulatedEvents {
  readonly simulation: SimulatedStream;
  /** A new Streams client answered by the simulation (DescribeStream, GetShardIterator, GetRecords). */
  client(): DynamoDBStreamsClient;
  /** The simulation's reshards and faults so far, by kind. */
  counts(): Map<string, number>;
  close(): void;
}

export async function simulatedEvents(config: ClientConfig, streamArn: string, seed: number, faultRate: number): Promise<SimulatedEvents> {
  // The source reads DynamoDB Local's own stream: never simulated, never faulted.
  const source = new DynamoDBStreamsClient({ ...config, maxAttempts: 1 });
  const simulation = await SimulatedStream.create({
    source,
    streamArn,
    seed,
    shards: 32,
    rolloverChance: 0.01,
    splitChance: 0.01,
    maxOpenShards: 64,
    iteratorLifetimeMs: 2_000,
    describePageSize: 16,
    faults: { throttleChance: faultRate / 2, failureChance: faultRate / 2, maxEmptyPages: 2, maxListingLagMs: 300 },
  });
  const clients: DynamoDBStreamsClient[] = [source];
  return {
    simulation,
    client: () => {
      const client = simulateStreams(new DynamoDBStreamsClient({ ...config, maxAttempts: 1 }), simulation);
      clients.push(client);
      return client;
    },
    counts: () => new Map(Object.entries(simulation.stats.snapshot())),
    close: () => {
      for (const client of clients) client.destroy();
    },
  };
}

/** The whole lineage of a disabled stream: takes in DynamoDB Local's records until every shard is closed. */
export async function finalLineage(events: SimulatedEvents, timeoutMs = 30_000): Promise<ReturnType<SimulatedStream['lineage']>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await events.simulation.sync();
    const lineage = events.simulation.lineage();
    if (lineage.every((shard) => shard.closed)) return lineage;
    if (Date.now() > deadline) throw new Error(`the simulated stream ${events.simulation.streamArn} never ended: is its table's stream disabled?`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The simulation's figures for a chaos summary: reshards apart, the rest as faults prefixed `streams:`. */
export function simulationFigures(counts: ReadonlyMap<string, number>): { splits: number; rollovers: number; faults: Map<string, number> } {
  const faults = new Map([...counts].filter(([kind]) => kind !== 'split' && kind !== 'rollover').map(([kind, n]) => [`streams:${kind}`, n]));
  return { splits: counts.get('split') ?? 0, rollovers: counts.get('rollover') ?? 0, faults };
}

/** A batch of the events feed as a consumer logged it: the shard it came from, in the order processed. */
export interface ShardBatch {
  readonly shardId: string;
}

/**
 * What the lineage must show after a run: every shard checkpointed as finished, every shard a consumer
 * read part of the lineage rebuilt from the seed (the same shard ids in every process), and a parent's
 * last batch processed before its child's first. Returns the problems found.
 */
export function checkLineage(
  lineage: ReadonlyArray<{ shardId: string; parentShardId: string | undefined }>,
  checkpoints: ReadonlyMap<string, { kind: string }>,
  batches: ReadonlyArray<ShardBatch>,
): string[] {
  const problems: string[] = [];
  for (const shard of lineage) {
    if (checkpoints.get(shard.shardId)?.kind !== 'finished') problems.push(`shard ${shard.shardId} not checkpointed as finished`);
  }
  const known = new Set(lineage.map((shard) => shard.shardId));
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  for (const [index, { shardId }] of batches.entries()) {
    if (!known.has(shardId)) problems.push(`shard ${shardId} was read but is not in the lineage rebuilt from the seed`);
    if (!first.has(shardId)) first.set(shardId, index);
    last.set(shardId, index);
  }
  for (const { shardId, parentShardId } of lineage) {
    if (parentShardId === undefined) continue;
    const parentLast = last.get(parentShardId);
    const childFirst = first.get(shardId);
    if (parentLast !== undefined && childFirst !== undefined && childFirst < parentLast) {
      problems.push(`shard ${shardId} had a batch processed (#${childFirst}) before the last of its parent ${parentShardId} (#${parentLast})`);
    }
  }
  return problems;
}

/** A shard's records as a reader took them in, in order. */
export interface ShardRecords {
  readonly shardId: string;
  readonly records: ReadonlyArray<_Record>;
}

/** Errors of the simulated Streams API that pass by themselves: the reader waits a little and asks again. */
const PASSING = new Set(['LimitExceededException', 'InternalServerError']);

/**
 * Every record of a simulated stream whose table's stream was disabled, read as a Lambda poller would
 * through the Streams API: the shards listed by paged `DescribeStream` calls until late listings showed
 * up, then each read from its trim horizon to its end (no `NextShardIterator`), in lineage order, through
 * throttling, internal errors, empty pages and expired iterators. Resolves the shards' records.
 */
export async function readSimulatedShards(events: SimulatedEvents, timeoutMs = 120_000): Promise<ShardRecords[]> {
  const deadline = Date.now() + timeoutMs;
  const lineage = await finalLineage(events, timeoutMs);
  const streams = events.client();
  const streamArn = events.simulation.streamArn;
  const ask = async <T>(send: () => Promise<T>, what: string): Promise<T> => {
    for (;;) {
      try {
        return await send();
      } catch (error) {
        if (!(error instanceof Error) || !PASSING.has(error.name) || Date.now() > deadline)
          throw new Error(`${what}: ${String(error)}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  const listed = new Set<string>();
  while (lineage.some((shard) => !listed.has(shard.shardId))) {
    if (Date.now() > deadline) throw new Error(`DescribeStream never listed ${lineage.filter((shard) => !listed.has(shard.shardId)).length} shards`);
    let start: string | undefined;
    do {
      const page = await ask(() => streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start })), 'DescribeStream');
      for (const shard of page.StreamDescription?.Shards ?? []) if (shard.ShardId !== undefined) listed.add(shard.ShardId);
      start = page.StreamDescription?.LastEvaluatedShardId;
    } while (start !== undefined);
  }
  const shards: ShardRecords[] = [];
  for (const { shardId } of lineage) {
    const records: _Record[] = [];
    const iteratorAfter = (last: string | undefined) =>
      ask(
        () =>
          streams.send(
            new GetShardIteratorCommand({
              StreamArn: streamArn,
              ShardId: shardId,
              ...(last === undefined ? { ShardIteratorType: 'TRIM_HORIZON' } : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: last }),
            }),
          ),
        `GetShardIterator ${shardId}`,
      ).then((answer) => answer.ShardIterator);
    let iterator = await iteratorAfter(undefined);
    while (iterator !== undefined) {
      if (Date.now() > deadline) throw new Error(`shard ${shardId} was not read to its end in time`);
      const current: string = iterator;
      try {
        const page = await ask(() => streams.send(new GetRecordsCommand({ ShardIterator: current })), `GetRecords ${shardId}`);
        records.push(...(page.Records ?? []));
        iterator = page.NextShardIterator;
      } catch (error) {
        if (!(error instanceof Error && error.cause instanceof Error && error.cause.name === 'ExpiredIteratorException')) throw error;
        iterator = await iteratorAfter(records[records.length - 1]?.dynamodb?.SequenceNumber);
      }
    }
    shards.push({ shardId, records });
  }
  return shards;
}
