import { DescribeStreamCommand, type DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  ChangeFeedConsumer,
  ChangeFeedError,
  ChangeFeedTrimmedError,
  MemoryCheckpointStore,
  runBatches,
  type ChangeFeedOptions,
} from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { createStreamedTable, disableStream, keysOf, serviceError, streamsClient, waitFor, writeItems, localFeed } from './support';

const client = testClient();
const clients: DynamoDBStreamsClient[] = [];

/** The stream's one shard on DynamoDB Local, and where its sequence numbers start. */
async function firstShard(streamArn: string): Promise<{ shardId: string; startingSequenceNumber: string }> {
  const streams = streamsClient();
  clients.push(streams);
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const shard = StreamDescription?.Shards?.[0];
  return { shardId: shard?.ShardId as string, startingSequenceNumber: shard?.SequenceNumberRange?.StartingSequenceNumber as string };
}

afterAll(() => {
  client.destroy();
  for (const streams of clients) streams.destroy();
});

/** A real Streams client whose requests of `operation` fail with `fault()` while it returns an error. */
function faultyClient(fault: (operation: string) => Error | undefined): DynamoDBStreamsClient {
  const streams = streamsClient();
  clients.push(streams);
  streams.middlewareStack.add(
    (next, context) => async (args) => {
      const error = fault(context.commandName ?? '');
      if (error !== undefined) throw error;
      return next(args);
    },
    { step: 'initialize', name: 'faultInjection' },
  );
  return streams;
}

/** A feed on `streams` with its checkpoints in memory, polling every 10 ms; `options` adds to or overrides that. */
function memoryFeed(streams: DynamoDBStreamsClient, streamArn: string, options: Partial<ChangeFeedOptions> = {}): ChangeFeedConsumer {
  return new ChangeFeedConsumer({
    ...localFeed,
    streamsClient: streams,
    streamArn,
    checkpoints: new MemoryCheckpointStore(),
    pollIntervalMs: 10,
    ...options,
  });
}

describe('Streams API failures', () => {
  it('retries throttling and internal errors with backoff, without losing records', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    await writeItems(client, table, 't', 0, 6);
    const counts = { GetRecordsCommand: 0, DescribeStreamCommand: 0, GetShardIteratorCommand: 0 };
    const names = ['LimitExceededException', 'ThrottlingException', 'InternalServerError'];
    const streams = faultyClient((operation) => {
      if (!(operation in counts)) return undefined;
      const count = counts[operation as keyof typeof counts]++;
      // The first three calls of each kind fail, then every other one.
      return count < 3 || count % 2 === 1 ? serviceError(names[count % names.length] ?? 'ThrottlingException') : undefined;
    });
    const warnings: unknown[] = [];
    const feed = memoryFeed(streams, streamArn, {
      batchSize: 2,
      backoff: { initialMs: 5, maxMs: 20 },
      logger: { warn: (details) => warnings.push(details) },
    });
    const seen: string[] = [];
    const run = runBatches(feed, async (batch) => {
      seen.push(...keysOf(batch));
      return { batchItemFailures: [] };
    });
    await waitFor(() => seen.length >= 6, 15_000, 'every record');
    await disableStream(client, table);
    await run;
    expect(seen).toEqual(['t:0', 't:1', 't:2', 't:3', 't:4', 't:5']);
    expect(counts.GetRecordsCommand).toBeGreaterThan(6);
    expect(warnings.length).toBeGreaterThan(5);
  });

  it('ends the feed with a ChangeFeedError, the SDK error as cause, for an error it does not retry', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    await writeItems(client, table, 'v', 0, 1);
    const refused = serviceError('ValidationException', 'not valid');
    const streams = faultyClient((operation) => (operation === 'GetRecordsCommand' ? refused : undefined));
    const feed = memoryFeed(streams, streamArn);
    const run = runBatches(feed, async () => ({ batchItemFailures: [] }));
    await expect(run).rejects.toBeInstanceOf(ChangeFeedError);
    await expect(run).rejects.toMatchObject({ operation: 'GetRecords', cause: refused, code: 'feed.request' });
    expect(feed.status().state).toBe('failed');
  });

  it('ends the feed with an AccessDeniedError naming the operation and the table for a refused read', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    await writeItems(client, table, 'v', 0, 1);
    const denied = serviceError('AccessDeniedException', 'not allowed');
    const feed = memoryFeed(
      faultyClient((operation) => (operation === 'GetRecordsCommand' ? denied : undefined)),
      streamArn,
    );
    const run = runBatches(feed, async () => ({ batchItemFailures: [] }));
    await expect(run).rejects.toMatchObject({ code: 'dynamo.accessDenied', operation: 'GetRecords', table, cause: denied });
  });

  it('fails with StreamNotFoundError for a stream that does not exist', async () => {
    const feed = new ChangeFeedConsumer({
      ...localFeed,
      streamsClient: faultyClient(() => undefined),
      streamArn: 'arn:aws:dynamodb:ddblocal:000000000000:table/missing/stream/2020-01-01T00:00:00.000',
      checkpoints: new MemoryCheckpointStore(),
    });
    await expect(runBatches(feed, async () => ({ batchItemFailures: [] }))).rejects.toMatchObject({
      name: 'StreamNotFoundError',
      operation: 'DescribeStream',
    });
  });

  it('fails with ChangeFeedTrimmedError, naming the positions, when the shard no longer holds the checkpoint', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const { shardId, startingSequenceNumber } = await firstShard(streamArn);
    // Records of another table come between the shard's start and its first record, so a checkpoint at
    // the shard's starting sequence number is older than the oldest record it holds: what a consumer
    // down past the retention finds.
    const other = await createStreamedTable(client);
    await writeItems(client, other.table, 'elsewhere', 0, 2);
    await writeItems(client, table, 'x', 0, 2);
    const checkpoints = new MemoryCheckpointStore();
    await checkpoints.putCheckpoint({ consumer: 'default', streamArn }, shardId, startingSequenceNumber);
    const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streamsClient(), streamArn, checkpoints, pollIntervalMs: 10 });
    const next = feed[Symbol.asyncIterator]().next();
    await expect(next).rejects.toBeInstanceOf(ChangeFeedTrimmedError);
    await expect(next).rejects.toMatchObject({ streamArn, shardId, code: 'feed.trimmed', sequenceNumber: startingSequenceNumber });
    await expect(next).rejects.toThrow(
      new RegExp(`oldest record the shard still holds, \\d+, is newer than the consumer's position ${startingSequenceNumber}`),
    );
  });

  it('reads on when the shard still holds the checkpoint: a trimmed answer alone proves nothing', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    await writeItems(client, table, 'y', 0, 3);
    const checkpoints = new MemoryCheckpointStore();
    const options = { streamArn, checkpoints, ...localFeed, pollIntervalMs: 10 };
    const first = new ChangeFeedConsumer({ ...options, streamsClient: streamsClient() });
    for await (const batch of first) {
      await batch.commit(); // y:0..2 in one batch
      break;
    }
    await writeItems(client, table, 'y', 3, 5);
    let injected = 0;
    const streams = faultyClient((operation) =>
      operation === 'GetRecordsCommand' && injected++ < 2 ? serviceError('TrimmedDataAccessException', 'trimmed') : undefined,
    );
    const seen: string[] = [];
    const second = new ChangeFeedConsumer({ ...options, streamsClient: streams });
    const run = runBatches(second, async (batch) => {
      seen.push(...keysOf(batch));
      return { batchItemFailures: [] };
    });
    await waitFor(() => seen.length >= 2, 10_000, 'the records after the checkpoint');
    await disableStream(client, table);
    await run;
    expect(seen).toEqual(['y:3', 'y:4']);
    expect(injected).toBeGreaterThan(2);
  });

  it('gives up with ChangeFeedTrimmedError when reads keep answering trimmed', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    await writeItems(client, table, 'x', 0, 1);
    const streams = faultyClient((operation) =>
      operation === 'GetRecordsCommand' ? serviceError('TrimmedDataAccessException', 'trimmed') : undefined,
    );
    const feed = memoryFeed(streams, streamArn, { backoff: { initialMs: 1, maxMs: 5 } });
    const next = feed[Symbol.asyncIterator]().next();
    await expect(next).rejects.toBeInstanceOf(ChangeFeedTrimmedError);
    await expect(next).rejects.toMatchObject({ streamArn, code: 'feed.trimmed' });
    await expect(next).rejects.toThrow(/answered TrimmedDataAccessException 6 times in a row/);
  });

  it('re-acquires an expired iterator from the shard position', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    await writeItems(client, table, 'i', 0, 2);
    let expire = 0;
    const streams = faultyClient((operation) =>
      operation === 'GetRecordsCommand' && expire++ === 1 ? serviceError('ExpiredIteratorException', 'UnknownError') : undefined,
    );
    let iterators = 0;
    streams.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'GetShardIteratorCommand') iterators++;
        return next(args);
      },
      { step: 'initialize', name: 'countIterators' },
    );
    const feed = memoryFeed(streams, streamArn, { batchSize: 1 });
    const seen: string[] = [];
    const run = runBatches(feed, async (batch) => {
      seen.push(...keysOf(batch));
      return { batchItemFailures: [] };
    });
    await waitFor(() => seen.length >= 2, 10_000, 'both records');
    await disableStream(client, table);
    await run;
    expect(seen).toEqual(['i:0', 'i:1']);
    expect(iterators).toBeGreaterThanOrEqual(2);
  });
});
