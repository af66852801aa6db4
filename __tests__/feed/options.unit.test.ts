import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  ChangeFeedConsumer,
  ChangeFeedDefaults,
  ConfigurationError,
  DynamoCheckpointStore,
  MemoryCheckpointStore,
  type ChangeFeedOptions,
} from 'dynafold/feed';

const streamsClient = new DynamoDBStreamsClient({
  region: 'us-east-1',
  endpoint: 'http://127.0.0.1:1',
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
});
const base: ChangeFeedOptions = { streamsClient, streamArn: 'arn:stream', checkpoints: new MemoryCheckpointStore() };

afterAll(() => streamsClient.destroy());

describe('ChangeFeedConsumer options', () => {
  it('applies the defaults', () => {
    const { options } = new ChangeFeedConsumer(base);
    expect(options).toMatchObject({
      consumer: ChangeFeedDefaults.consumer,
      startingPosition: 'TRIM_HORIZON',
      pollIntervalMs: 1_000,
      batchSize: 100,
      describeIntervalMs: 30_000,
      disabledSettleMs: 10_000,
      maxConcurrentReads: 16,
      backoff: { initialMs: 100, maxMs: 10_000 },
      lease: { durationMs: 30_000, renewEveryMs: 10_000, onHeld: 'fail' },
    });
    const lease = options.lease;
    expect(lease !== false && lease.owner).toMatch(/^.+-\d+-[0-9a-f]{8}$/);
  });

  it.each<[string, Partial<ChangeFeedOptions>, RegExp]>([
    ['batchSize of 0', { batchSize: 0 }, /Expected `batchSize` to be an integer from 1 to 1000, got 0/],
    ['a negative disabledSettleMs', { disabledSettleMs: -1 }, /`disabledSettleMs`/],
    ['batchSize of 1001', { batchSize: 1001 }, /`batchSize`/],
    ['fractional batchSize', { batchSize: 2.5 }, /`batchSize`/],
    ['maxConcurrentReads of 0', { maxConcurrentReads: 0 }, /Expected `maxConcurrentReads` to be an integer of at least 1/],
    ['fractional maxConcurrentReads', { maxConcurrentReads: 1.5 }, /`maxConcurrentReads`/],
    ['renewEveryMs of half the duration', { lease: { durationMs: 1_000, renewEveryMs: 500 } }, /`lease.renewEveryMs` \(500\) to be less than half/],
    ['a negative pollIntervalMs', { pollIntervalMs: -1 }, /`pollIntervalMs`/],
    ['describeIntervalMs of 0', { describeIntervalMs: 0 }, /`describeIntervalMs`/],
    ['an unknown startingPosition', { startingPosition: 'AT_TIMESTAMP' as 'LATEST' }, /`startingPosition`/],
    ['an unknown onHeld', { lease: { onHeld: 'steal' as 'wait' } }, /`lease.onHeld`/],
    ['an empty consumer', { consumer: '' }, /`consumer`/],
    ['an empty streamArn', { streamArn: '' }, /`streamArn`/],
    ['backoff.maxMs below initialMs', { backoff: { initialMs: 100, maxMs: 50 } }, /`backoff.maxMs`/],
    ['no checkpoint store', { checkpoints: undefined as unknown as MemoryCheckpointStore }, /`checkpoints`/],
  ])('rejects %s with a ConfigurationError naming the option', (_, override, message) => {
    const attempt = () => new ChangeFeedConsumer({ ...base, ...override });
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(message);
  });

  it('accepts renewEveryMs just under half the duration, and lease: false', () => {
    expect(new ChangeFeedConsumer({ ...base, lease: { durationMs: 1_000, renewEveryMs: 499 } }).options.lease).toMatchObject({ renewEveryMs: 499 });
    expect(new ChangeFeedConsumer({ ...base, lease: false }).options.lease).toBe(false);
  });

  it('can be iterated only once', () => {
    const feed = new ChangeFeedConsumer({ ...base, signal: AbortSignal.abort() });
    feed[Symbol.asyncIterator]();
    expect(() => feed[Symbol.asyncIterator]()).toThrow(ConfigurationError);
  });

  it('ends at once when its signal was already aborted', async () => {
    const feed = new ChangeFeedConsumer({ ...base, signal: AbortSignal.abort() });
    const batches: unknown[] = [];
    for await (const batch of feed) batches.push(batch);
    expect(batches).toEqual([]);
    expect(feed.status().state).toBe('ended');
  });
});

describe('DynamoCheckpointStore options', () => {
  const client = new DynamoDBClient({ region: 'us-east-1' });
  afterAll(() => client.destroy());

  it('rejects a finishedTtlMs under 28 hours', () => {
    expect(() => new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtlMs: 27 * 3_600_000 })).toThrow(ConfigurationError);
    expect(() => new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtlMs: 27 * 3_600_000 })).toThrow(/`finishedTtlMs`/);
    expect(() => new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtlMs: 28 * 3_600_000 })).not.toThrow();
  });

  it('rejects a missing table name', () => {
    expect(() => new DynamoCheckpointStore({ client, table: '' })).toThrow(/`table`/);
  });

  it('defines the checkpoint table: pk S HASH, sk S RANGE, on demand', () => {
    expect(DynamoCheckpointStore.tableDefinition('cp')).toEqual({
      TableName: 'cp',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    });
  });
});
