/**
 * One vocabulary for options: `retry: { attempts, backoff, maxElapsedMs }` and `Ttl: { durationMs,
 * attribute }`, validated at construction (per call for a call's own options). The names they replace
 * still work for one minor version and say so once per process.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ConfigurationError, EventStreamDefaults, Projection, ProjectionDefaults, ValidationError } from 'dynafold';
import type { RetryOptions } from 'dynafold/types';
import {
  ChangeFeedConsumer,
  ChangeFeedDefaults,
  DynamoCheckpointStore,
  DynamoCheckpointStoreDefaults,
  MemoryCheckpointStore,
  type ChangeFeedOptions,
} from 'dynafold/feed';
import { orderSummaries } from './support/order-projection';
import { orderStream } from './support/orders';

// Nothing here sends a request: every option is refused before one would be.
const unreachable = { region: 'us-east-1', endpoint: 'http://127.0.0.1:1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };
const client = new DynamoDBClient(unreachable);
const streamsClient = new DynamoDBStreamsClient(unreachable);
afterAll(() => {
  client.destroy();
  streamsClient.destroy();
});

const feedBase: ChangeFeedOptions = { streamsClient, streamArn: 'arn:stream', checkpoints: new MemoryCheckpointStore() };
const stream = orderStream(client, 'events');
const projectionOf = (options: { retry?: RetryOptions; tombstoneTtl?: { durationMs: number; attribute?: string } }) =>
  new Projection({
    stream,
    readModel: orderSummaries(client, 'views'),
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: () => ({}) as never,
    evolve: (state: never) => state,
    checkpoint: 'version',
    ...options,
  });

/** A logger that records its warnings. */
function recordingLogger(): { warn: (...args: unknown[]) => void; readonly warnings: string[] } {
  const warnings: string[] = [];
  return { warn: (message: unknown) => warnings.push(String(message)), warnings };
}

describe('old names keep working and warn once per process', () => {
  test('the feed’s `backoff` is `retry.backoff`', () => {
    const logger = recordingLogger();
    const first = new ChangeFeedConsumer({ ...feedBase, backoff: { initialMs: 7, maxMs: 70 }, logger });
    const second = new ChangeFeedConsumer({ ...feedBase, backoff: { initialMs: 8, maxMs: 80 }, logger });
    expect(first.options.backoff).toEqual({ initialMs: 7, maxMs: 70 });
    expect(second.options.backoff).toEqual({ initialMs: 8, maxMs: 80 });
    expect(logger.warnings).toEqual([expect.stringMatching(/`backoff` is deprecated .*`retry: \{ backoff \}`/)]);
    expect(new ChangeFeedConsumer({ ...feedBase, retry: { backoff: { initialMs: 9, maxMs: 90 } } }).options.backoff).toEqual({
      initialMs: 9,
      maxMs: 90,
    });
  });

  test('the checkpoint store’s `finishedTtlMs` is `finishedTtl.durationMs`', () => {
    const logger = recordingLogger();
    const hours = (n: number) => n * 3_600_000;
    expect(() => new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtlMs: hours(30), logger })).not.toThrow();
    expect(() => new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtlMs: hours(31), logger })).not.toThrow();
    expect(() => new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtlMs: hours(27), logger })).toThrow(/`finishedTtlMs`/);
    expect(logger.warnings).toEqual([expect.stringMatching(/`finishedTtlMs` is deprecated .*`finishedTtl: \{ durationMs \}`/)]);
    expect(() => new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtl: { durationMs: hours(27) } })).toThrow(
      /`finishedTtl.durationMs`/,
    );
    // The checkpoint table's TTL attribute is fixed by its definition.
    expect(
      () => new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtl: { durationMs: hours(30), attribute: 'x' } as never }),
    ).toThrow(ConfigurationError);
  });

  test('the defaults under their old names', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      for (let read = 0; read < 2; read++) {
        expect(EventStreamDefaults.commandAttempts).toBe(EventStreamDefaults.commandRetry.attempts);
        expect(EventStreamDefaults.commandBackoff).toBe(EventStreamDefaults.commandRetry.backoff);
        expect(ChangeFeedDefaults.backoff).toBe(ChangeFeedDefaults.retry.backoff);
        expect(DynamoCheckpointStoreDefaults.finishedTtlMs).toBe(DynamoCheckpointStoreDefaults.finishedTtl.durationMs);
      }
      const deprecated = warn.mock.calls.map(([line]) => (JSON.parse(String(line)) as { deprecated: string }).deprecated);
      expect(deprecated).toEqual([
        'EventStreamDefaults.commandAttempts',
        'EventStreamDefaults.commandBackoff',
        'ChangeFeedDefaults.backoff',
        'DynamoCheckpointStoreDefaults.finishedTtlMs',
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  test('old and new name at once is a ConfigurationError', () => {
    const both = { ...feedBase, backoff: { initialMs: 7, maxMs: 70 }, retry: { backoff: { initialMs: 7, maxMs: 70 } } };
    expect(() => new ChangeFeedConsumer(both)).toThrow(ConfigurationError);
    expect(() => new ChangeFeedConsumer(both)).toThrow(/give only `retry`/);
    expect(
      () => new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtlMs: 30 * 3_600_000, finishedTtl: { durationMs: 30 * 3_600_000 } }),
    ).toThrow(/give only `finishedTtl`/);
  });
});

describe('the retry shape is validated', () => {
  const bad: ReadonlyArray<[string, RetryOptions, RegExp]> = [
    ['attempts below 1', { attempts: 0 }, /`retry.attempts`/],
    ['fractional attempts', { attempts: 1.5 }, /`retry.attempts`/],
    ['backoff.maxMs below initialMs', { backoff: { initialMs: 10, maxMs: 5 } }, /`retry.backoff.maxMs`/],
    ['backoff.initialMs below 1', { backoff: { initialMs: 0, maxMs: 5 } }, /`retry.backoff.initialMs`/],
    ['negative maxElapsedMs', { maxElapsedMs: -1 }, /`retry.maxElapsedMs`/],
    ['fractional maxElapsedMs', { maxElapsedMs: 0.5 }, /`retry.maxElapsedMs`/],
  ];

  test.each(bad)('a projection refuses %s at construction', (_name, retry, message) => {
    expect(() => projectionOf({ retry })).toThrow(ConfigurationError);
    expect(() => projectionOf({ retry })).toThrow(message);
  });

  test.each(bad)('a backfill refuses %s before it reads', async (_name, retry, message) => {
    await expect(projectionOf({}).backfill({ retry })).rejects.toThrow(ConfigurationError);
    await expect(projectionOf({}).backfill({ retry })).rejects.toThrow(message);
  });

  test.each(bad)('an append and a command refuse %s with ValidationError, sending nothing', async (_name, retry, message) => {
    const events = [{ type: 'OrderShipped' as const, data: {} }];
    await expect(stream.append({ orderId: 'o' }, events, { retry })).rejects.toThrow(ValidationError);
    await expect(stream.append({ orderId: 'o' }, events, { retry })).rejects.toThrow(message);
    const decider = { initial: {}, evolve: (state: object) => state, decide: () => events };
    await expect(stream.execute({ orderId: 'o' }, decider, { retry })).rejects.toThrow(ValidationError);
    await expect(stream.execute({ orderId: 'o' }, decider, { retry })).rejects.toThrow(message);
  });

  test('the feed takes only a backoff: it retries without limit', () => {
    expect(() => new ChangeFeedConsumer({ ...feedBase, retry: { backoff: { initialMs: 10, maxMs: 5 } } })).toThrow(/`retry.backoff.maxMs`/);
    for (const retry of [{ attempts: 3 }, { maxElapsedMs: 1_000 }]) {
      expect(() => new ChangeFeedConsumer({ ...feedBase, retry } as ChangeFeedOptions)).toThrow(ConfigurationError);
      expect(() => new ChangeFeedConsumer({ ...feedBase, retry } as ChangeFeedOptions)).toThrow(/retries without limit/);
    }
  });
});

describe('the Ttl shape is validated', () => {
  test('a tombstone TTL: its duration, and an attribute that is a name', () => {
    expect(() => projectionOf({ tombstoneTtl: { durationMs: 999 } })).toThrow(/`tombstoneTtl.durationMs`/);
    expect(() => projectionOf({ tombstoneTtl: { durationMs: 60_000, attribute: '' } })).toThrow(/`tombstoneTtl.attribute`/);
    expect(() => projectionOf({ tombstoneTtl: { durationMs: 60_000 } })).not.toThrow();
    expect(ProjectionDefaults.tombstoneTtlAttribute).toBe('ttl');
  });
});
