import { ChangeFeedConsumer, CheckpointStoreError, MemoryCheckpointStore, runBatches, type ChangeFeedBatch } from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { createStreamedTable, keysOf, streamsClient, waitFor, writeItems, localFeed } from './support';

const client = testClient();
const streams = streamsClient();

afterAll(() => {
  client.destroy();
  streams.destroy();
});

const key = (streamArn: string) => ({ consumer: 'ack', streamArn });

describe('acknowledging a batch', () => {
  it('complete() with a failure checkpoints before it and re-reads from the failed record after a backoff', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const store = new MemoryCheckpointStore();
    await writeItems(client, table, 'k', 0, 5);
    const feed = new ChangeFeedConsumer({
      ...localFeed,
      streamsClient: streams,
      streamArn,
      consumer: 'ack',
      checkpoints: store,
      backoff: { initialMs: 150, maxMs: 150 },
    });
    const iterator = feed[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as ChangeFeedBatch;
    expect(keysOf(first)).toEqual(['k:0', 'k:1', 'k:2', 'k:3', 'k:4']);
    const failed = first.records[2]?.dynamodb?.SequenceNumber ?? '';
    const before = first.records[1]?.dynamodb?.SequenceNumber ?? '';
    await first.complete({ batchItemFailures: [{ itemIdentifier: first.records[3]?.dynamodb?.SequenceNumber ?? '' }, { itemIdentifier: failed }] });
    const acknowledgedAt = Date.now();
    expect((await store.getCheckpoints(key(streamArn))).get(first.shardId)).toEqual({ kind: 'sequence', sequenceNumber: before });
    // Later acknowledgements of a settled batch do nothing.
    await first.commit();
    expect((await store.getCheckpoints(key(streamArn))).get(first.shardId)).toEqual({ kind: 'sequence', sequenceNumber: before });

    const second = (await iterator.next()).value as ChangeFeedBatch;
    expect(Date.now() - acknowledgedAt).toBeGreaterThanOrEqual(70); // at least half the jittered backoff
    expect(keysOf(second)).toEqual(['k:2', 'k:3', 'k:4']);
    expect(second.firstSequenceNumber).toBe(failed);
    expect(feed.status().shards[0]?.batchesFailed).toBe(1);
    await second.commit();
    expect((await store.getCheckpoints(key(streamArn))).get(first.shardId)).toEqual({
      kind: 'sequence',
      sequenceNumber: second.lastSequenceNumber,
    });
    await iterator.return?.();
  });

  it('an identifier naming no record of the batch fails the whole batch', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const store = new MemoryCheckpointStore();
    await writeItems(client, table, 'w', 0, 3);
    const feed = new ChangeFeedConsumer({
      ...localFeed,
      streamsClient: streams,
      streamArn,
      consumer: 'ack',
      checkpoints: store,
      backoff: { initialMs: 20, maxMs: 20 },
    });
    const iterator = feed[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as ChangeFeedBatch;
    await first.complete({ batchItemFailures: [{ itemIdentifier: first.lastSequenceNumber }, { itemIdentifier: 'not-a-record' }] });
    expect((await store.getCheckpoints(key(streamArn))).size).toBe(0);
    const again = (await iterator.next()).value as ChangeFeedBatch;
    expect(keysOf(again)).toEqual(['w:0', 'w:1', 'w:2']);
    await iterator.return?.();
  });

  it('a failed checkpoint write rejects with CheckpointStoreError and can be retried', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const store = new MemoryCheckpointStore();
    let failWrites = 1;
    const flaky = Object.assign(Object.create(store) as MemoryCheckpointStore, {
      putCheckpoint: async (...args: Parameters<MemoryCheckpointStore['putCheckpoint']>) => {
        if (failWrites-- > 0) throw new CheckpointStoreError('disk on fire');
        return store.putCheckpoint(...args);
      },
    });
    await writeItems(client, table, 'f', 0, 2);
    const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, consumer: 'ack', checkpoints: flaky });
    const iterator = feed[Symbol.asyncIterator]();
    const batch = (await iterator.next()).value as ChangeFeedBatch;
    await expect(batch.commit()).rejects.toBeInstanceOf(CheckpointStoreError);
    expect((await store.getCheckpoints(key(streamArn))).size).toBe(0);
    await batch.commit();
    expect((await store.getCheckpoints(key(streamArn))).get(batch.shardId)).toEqual({ kind: 'sequence', sequenceNumber: batch.lastSequenceNumber });
    await iterator.return?.();
  });

  it('runBatches finishes and acknowledges the batches in hand when the feed is stopped', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const store = new MemoryCheckpointStore();
    await writeItems(client, table, 'g', 0, 2);
    const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, consumer: 'ack', checkpoints: store });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    let last = '';
    const run = runBatches(feed, async (batch) => {
      started = true;
      last = batch.lastSequenceNumber;
      await gate;
      return { batchItemFailures: [] };
    });
    await waitFor(() => started, 10_000, 'a batch in hand');
    const stopped = feed.stop();
    release();
    await stopped;
    await run;
    expect([...(await store.getCheckpoints(key(streamArn))).values()]).toEqual([{ kind: 'sequence', sequenceNumber: last }]);
  });

  it('runBatches rejects with the handler’s error and leaves its batch unacknowledged', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const store = new MemoryCheckpointStore();
    await writeItems(client, table, 'h', 0, 2);
    const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, consumer: 'ack', checkpoints: store });
    const failure = new Error('handler failed');
    await expect(runBatches(feed, () => Promise.reject(failure))).rejects.toBe(failure);
    expect((await store.getCheckpoints(key(streamArn))).size).toBe(0);
    expect(await store.getLease(key(streamArn))).toBeUndefined();
  });
});
