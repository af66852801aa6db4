import { ChangeFeedConsumer, runBatches, type ChangeFeedBatch } from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { createCheckpointStore, createStreamedTable, disableStream, keysOf, streamsClient, waitFor, writeItems, localFeed } from './support';

const client = testClient();
const streams = streamsClient();

afterAll(() => {
  client.destroy();
  streams.destroy();
});

describe('ChangeFeedConsumer end to end', () => {
  it('delivers every record of concurrent writers in per-item order, and ends once the disabled stream is drained', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const { store } = await createCheckpointStore(client);
    const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, checkpoints: store, batchSize: 7 });

    const seen: string[] = [];
    const run = runBatches(feed, async (batch) => {
      seen.push(...keysOf(batch));
      return { batchItemFailures: [] };
    });
    const writers = ['a', 'b', 'c', 'd'];
    await Promise.all(writers.map((pk) => writeItems(client, table, pk, 0, 25)));
    await waitFor(() => seen.length >= 100, 15_000, 'all records');
    await disableStream(client, table);
    await run;

    expect(seen).toHaveLength(100);
    for (const pk of writers) {
      expect(seen.filter((key) => key.startsWith(`${pk}:`))).toEqual(Array.from({ length: 25 }, (_, n) => `${pk}:${n}`));
    }
    const checkpoints = await store.getCheckpoints({ consumer: 'default', streamArn });
    expect([...checkpoints.values()]).toEqual([{ kind: 'finished' }]);
    expect(feed.status().state).toBe('ended');
    expect(await store.getLease({ consumer: 'default', streamArn })).toBeUndefined();
  });

  it('works as a for-await loop; break releases the lease', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const { store } = await createCheckpointStore(client);
    await writeItems(client, table, 'x', 0, 5);
    const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, consumer: 'script', checkpoints: store });
    const batches: ChangeFeedBatch[] = [];
    for await (const batch of feed) {
      batches.push(batch);
      await batch.commit();
      if (batches.flatMap(keysOf).length >= 5) break;
    }
    expect(batches.flatMap(keysOf)).toEqual(['x:0', 'x:1', 'x:2', 'x:3', 'x:4']);
    const last = batches[batches.length - 1];
    expect((await store.getCheckpoints({ consumer: 'script', streamArn })).get(last?.shardId ?? '')).toEqual({
      kind: 'sequence',
      sequenceNumber: last?.lastSequenceNumber,
    });
    expect(await store.getLease({ consumer: 'script', streamArn })).toBeUndefined();
    expect(feed.status().state).toBe('ended');
  });
});
