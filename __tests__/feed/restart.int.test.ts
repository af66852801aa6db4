import { ChangeFeedConsumer, MemoryCheckpointStore, runBatches } from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { createCheckpointStore, createStreamedTable, disableStream, keysOf, streamsClient, waitFor, writeItems, localFeed } from './support';

const client = testClient();
const streams = streamsClient();

afterAll(() => {
  client.destroy();
  streams.destroy();
});

describe('restarting a feed', () => {
  it('resumes after the checkpoint with the same checkpoint table: nothing lost, nothing acknowledged read twice', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const { store } = await createCheckpointStore(client);
    const options = {
      streamsClient: streams,
      streamArn,
      checkpoints: store,
      consumer: 'restart',
      ...localFeed,
      batchSize: 4,
    };
    await writeItems(client, table, 'r', 0, 10);

    const first = new ChangeFeedConsumer(options);
    const firstSeen: string[] = [];
    for await (const batch of first) {
      firstSeen.push(...keysOf(batch));
      await batch.commit();
      if (firstSeen.length >= 8) break;
    }
    expect(firstSeen).toEqual(['r:0', 'r:1', 'r:2', 'r:3', 'r:4', 'r:5', 'r:6', 'r:7']);

    await writeItems(client, table, 'r', 10, 15);
    const second = new ChangeFeedConsumer(options);
    const secondSeen: string[] = [];
    const run = runBatches(second, async (batch) => {
      secondSeen.push(...keysOf(batch));
      return { batchItemFailures: [] };
    });
    await waitFor(() => secondSeen.length >= 7, 10_000, 'the rest');
    await disableStream(client, table);
    await run;
    expect(secondSeen).toEqual(['r:8', 'r:9', 'r:10', 'r:11', 'r:12', 'r:13', 'r:14']);

    // A third start finds every shard finished and the stream disabled: it ends at once.
    const third = new ChangeFeedConsumer(options);
    const thirdSeen: string[] = [];
    for await (const batch of third) thirdSeen.push(...keysOf(batch));
    expect(thirdSeen).toEqual([]);
  });

  it('stop() ends a running feed and releases its lease; unacknowledged batches are read again', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const { store } = await createCheckpointStore(client);
    const options = { streamsClient: streams, streamArn, checkpoints: store, consumer: 'stopper', ...localFeed };
    await writeItems(client, table, 's', 0, 3);
    const feed = new ChangeFeedConsumer(options);
    const iterator = feed[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    const pending = iterator.next();
    await feed.stop();
    await expect(pending).resolves.toEqual({ value: undefined, done: true });
    expect(await store.getLease({ consumer: 'stopper', streamArn })).toBeUndefined();

    const again = new ChangeFeedConsumer(options);
    for await (const batch of again) {
      expect(keysOf(batch)).toEqual(['s:0', 's:1', 's:2']);
      break;
    }
  });

  it('an AbortSignal stops the feed like stop()', async () => {
    const { streamArn } = await createStreamedTable(client);
    const { store } = await createCheckpointStore(client);
    const controller = new AbortController();
    const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, checkpoints: store, signal: controller.signal });
    const run = runBatches(feed, async () => ({ batchItemFailures: [] }));
    await waitFor(() => feed.status().state === 'running', 10_000, 'running');
    controller.abort();
    await run;
    expect(feed.status().state).toBe('ended');
  });
});

describe('stopping a feed whose iterator was never pulled', () => {
  it('resolves stop() at once', async () => {
    const feed = new ChangeFeedConsumer({
      ...localFeed,
      streamsClient: streams,
      streamArn: 'arn:aws:dynamodb:ddblocal:000000000000:table/none/stream/2020-01-01T00:00:00.000',
      checkpoints: new MemoryCheckpointStore(),
    });
    const iterator = feed[Symbol.asyncIterator]();
    await feed.stop();
    await expect(iterator.next()).resolves.toEqual({ value: undefined, done: true });
    expect(feed.status().state).toBe('ended');
  });
});
