import {
  ChangeFeedConsumer,
  CheckpointStoreError,
  MemoryCheckpointStore,
  type DynamoCheckpointStore,
  LeaseHeldError,
  LeaseLostError,
  type ChangeFeedBatch,
  type ChangeFeedOptions,
} from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { createCheckpointStore, createStreamedTable, keysOf, streamsClient, waitFor, writeItems, localFeed } from './support';

const client = testClient();
const streams = streamsClient();

afterAll(() => {
  client.destroy();
  streams.destroy();
});

async function setup(): Promise<{ table: string; streamArn: string; store: DynamoCheckpointStore; options: (owner: string) => ChangeFeedOptions }> {
  const { table, streamArn } = await createStreamedTable(client);
  const { store } = await createCheckpointStore(client);
  const options = (owner: string): ChangeFeedOptions => ({
    streamsClient: streams,
    streamArn,
    consumer: 'leased',
    checkpoints: store,
    ...localFeed,
    lease: { durationMs: 1_200, renewEveryMs: 300, owner },
  });
  return { table, streamArn, store, options };
}

describe('the lease', () => {
  it('makes a second consumer fail with LeaseHeldError naming the holder', async () => {
    const { table, options } = await setup();
    await writeItems(client, table, 'l', 0, 1);
    const first = new ChangeFeedConsumer(options('first'));
    const iterator = first[Symbol.asyncIterator]();
    await iterator.next();

    const second = new ChangeFeedConsumer(options('second'));
    const attempt = second[Symbol.asyncIterator]().next();
    await expect(attempt).rejects.toBeInstanceOf(LeaseHeldError);
    await expect(attempt).rejects.toMatchObject({ owner: 'first', code: 'feed.leaseHeld' });
    expect(second.status().state).toBe('failed');
    await iterator.return?.();
  });

  it("with onHeld: 'wait' takes over once the holder releases the lease", async () => {
    const { table, options } = await setup();
    await writeItems(client, table, 'h', 0, 2);
    const first = new ChangeFeedConsumer(options('first'));
    const iterator = first[Symbol.asyncIterator]();
    await iterator.next(); // delivered but never acknowledged

    const second = new ChangeFeedConsumer({
      ...options('second'),
      lease: { durationMs: 1_200, renewEveryMs: 300, owner: 'second', onHeld: 'wait' },
    });
    const next = second[Symbol.asyncIterator]().next();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(second.status().state).toBe('starting');
    await first.stop();
    const batch = (await next).value as ChangeFeedBatch;
    expect(keysOf(batch)).toEqual(['h:0', 'h:1']);
    expect(second.status().lease?.owner).toBe('second');
    await second.stop();
  });

  it("with onHeld: 'wait' takes over a lapsed lease; the first consumer then fails with LeaseLostError and can't commit", async () => {
    const { table, streamArn, store, options } = await setup();
    await writeItems(client, table, 'e', 0, 3);
    // The first consumer's renewals stall (a paused process, a partition) until the gate opens.
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const stalled = Object.assign(Object.create(store) as DynamoCheckpointStore, {
      renewLease: async (...args: Parameters<DynamoCheckpointStore['renewLease']>) => {
        await gate;
        return store.renewLease(...args);
      },
    });
    const first = new ChangeFeedConsumer({ ...options('first'), checkpoints: stalled });
    const firstIterator = first[Symbol.asyncIterator]();
    const held = (await firstIterator.next()).value as ChangeFeedBatch;
    const firstFails = firstIterator.next();
    firstFails.catch(() => undefined);

    const second = new ChangeFeedConsumer({
      ...options('second'),
      lease: { durationMs: 1_200, renewEveryMs: 300, owner: 'second', onHeld: 'wait' },
    });
    const secondIterator = second[Symbol.asyncIterator]();
    const taken = (await secondIterator.next()).value as ChangeFeedBatch;
    expect(keysOf(taken)).toEqual(['e:0', 'e:1', 'e:2']);
    expect((await store.getLease({ consumer: 'leased', streamArn }))?.owner).toBe('second');

    openGate();
    await expect(firstFails).rejects.toBeInstanceOf(LeaseLostError);
    await expect(held.commit()).rejects.toBeInstanceOf(LeaseLostError);
    expect((await store.getCheckpoints({ consumer: 'leased', streamArn })).size).toBe(0);
    expect(first.status()).toMatchObject({ state: 'failed', lease: { lost: true } });

    await taken.commit();
    expect((await store.getCheckpoints({ consumer: 'leased', streamArn })).get(taken.shardId)).toEqual({
      kind: 'sequence',
      sequenceNumber: taken.lastSequenceNumber,
    });
    await secondIterator.return?.();
  });

  it('retries a failing renewal until renewEvery before the lease lapses, then fails the feed with the store error', async () => {
    const { table, streamArn, options } = await setup();
    await writeItems(client, table, 'q', 0, 1);
    const store = new MemoryCheckpointStore();
    let renewals = 0;
    const failing = Object.assign(Object.create(store) as MemoryCheckpointStore, {
      renewLease: async () => {
        renewals++;
        throw new CheckpointStoreError('throttled', { cause: Object.assign(new Error('slow down'), { name: 'ThrottlingException' }) });
      },
    });
    // A longer lease than the other tests': the first batch must arrive before the feed gives up
    // (renewEvery before the lease lapses), and a busy machine took more than 900 ms to read it.
    const feed = new ChangeFeedConsumer({
      ...options('renewer'),
      lease: { durationMs: 6_000, renewEveryMs: 1_500, owner: 'renewer' },
      checkpoints: failing,
      backoff: { initialMs: 50, maxMs: 100 },
    });
    const iterator = feed[Symbol.asyncIterator]();
    const batch = (await iterator.next()).value as ChangeFeedBatch;
    // Measured against the lease as stored (not against when the first batch arrived, which a loaded
    // machine delays): renewals never succeed, so it keeps the expiry it was taken with.
    const lease = await store.getLease({ consumer: 'leased', streamArn });
    const expiresAt = lease?.expiresAt ?? Number.NaN;
    const failure = iterator.next();
    await expect(failure).rejects.toBeInstanceOf(CheckpointStoreError);
    const failedAt = Date.now();
    // Taken for 6 s, renewed every 1.5 s: it gives up renewEvery before the lease lapses, not later.
    expect(failedAt).toBeGreaterThanOrEqual(expiresAt - 1_500 - 50);
    expect(failedAt).toBeLessThan(expiresAt);
    expect(renewals).toBeGreaterThan(2);
    await expect(batch.commit()).rejects.toBeInstanceOf(LeaseLostError);
    expect((await store.getCheckpoints({ consumer: 'leased', streamArn })).size).toBe(0);
  });

  it('lease: false reads without one', async () => {
    const { table, streamArn, store, options } = await setup();
    await writeItems(client, table, 'n', 0, 1);
    const feed = new ChangeFeedConsumer({ ...options('none'), lease: false });
    for await (const batch of feed) {
      expect(await store.getLease({ consumer: 'leased', streamArn })).toBeUndefined();
      await batch.commit();
      break;
    }
    await waitFor(() => feed.status().state === 'ended');
  });
});
