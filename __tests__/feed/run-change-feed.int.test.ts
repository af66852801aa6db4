import { eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { ChangeFeedConsumer, MemoryCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream } from '../support/orders';
import { disableStream, streamsClient, localFeed } from './support';

const client = testClient();
const streams = streamsClient();

afterAll(() => {
  client.destroy();
  streams.destroy();
});

describe('runChangeFeed', () => {
  it('projects every event of the feed into read-model rows, calling onBatch before each acknowledgement', async () => {
    const events = await createTestTable(client, eventsTableDefinition, 'events');
    const stream = orderStream(client, events.name);
    const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'views')).name;
    const summaries = orderSummaries(client, views);
    const projection = orderSummaryProjection(stream, summaries);
    const orderIds = ['o-1', 'o-2', 'o-3'];
    await Promise.all(
      orderIds.map(async (orderId) => {
        await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: `c-${orderId}` } }], { expectedVersion: 0 });
        await stream.append({ orderId }, [
          { type: 'ItemAdded', data: { sku: 'a', price: 3 } },
          { type: 'ItemAdded', data: { sku: 'b', price: 4 } },
        ]);
      }),
    );
    await disableStream(client, events.name);

    const checkpoints = new MemoryCheckpointStore();
    const streamArn = events.streamArn as string;
    const applied: string[] = [];
    const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, checkpoints, batchSize: 4 });
    await runChangeFeed(feed, {
      projections: { summaries: projection },
      onBatch: async (result, batch) => {
        expect((await checkpoints.getCheckpoints({ consumer: 'default', streamArn })).get(batch.shardId)).not.toEqual({
          kind: 'sequence',
          sequenceNumber: batch.lastSequenceNumber,
        });
        for (const outcome of result.outcomes.summaries ?? [])
          if (outcome.status === 'applied') applied.push(...outcome.applied.map((e) => `${e.streamId}:${e.version}`));
      },
    });

    for (const orderId of orderIds) {
      const row = await summaries.get({ orderId }, { consistent: true });
      const history = await stream.read({ orderId });
      expect(row).toMatchObject(foldSummary(orderId, history));
    }
    expect(applied.sort()).toEqual(orderIds.flatMap((id) => [`${id}:1`, `${id}:2`, `${id}:3`]).sort());
  });

  it('ends without acknowledging when onBatch fails', async () => {
    const events = await createTestTable(client, eventsTableDefinition, 'events');
    const stream = orderStream(client, events.name);
    const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'views')).name;
    const projection = orderSummaryProjection(stream, orderSummaries(client, views));
    await stream.append({ orderId: 'o-9' }, [{ type: 'OrderPlaced', data: { customer: 'x' } }], { expectedVersion: 0 });
    const checkpoints = new MemoryCheckpointStore();
    const streamArn = events.streamArn as string;
    const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, checkpoints });
    const failure = new Error('side effect failed');
    await expect(runChangeFeed(feed, { projections: { summaries: projection }, onBatch: () => Promise.reject(failure) })).rejects.toBe(failure);
    expect((await checkpoints.getCheckpoints({ consumer: 'default', streamArn })).size).toBe(0);
    expect(feed.status().state).toBe('ended');
  });

  it('reports positions onBatch pushes to result.failedRecords: the batch is read again from the earliest', async () => {
    const events = await createTestTable(client, eventsTableDefinition, 'events');
    const stream = orderStream(client, events.name);
    const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'views')).name;
    const summaries = orderSummaries(client, views);
    const projection = orderSummaryProjection(stream, summaries);
    // One event per append: three records, the second of which fails.
    await stream.append({ orderId: 'o-7' }, [{ type: 'OrderPlaced', data: { customer: 'x' } }]);
    await stream.append({ orderId: 'o-7' }, [{ type: 'ItemAdded', data: { sku: 'a', price: 1 } }]);
    await stream.append({ orderId: 'o-7' }, [{ type: 'ItemAdded', data: { sku: 'b', price: 2 } }]);
    await disableStream(client, events.name);
    const seen: string[] = [];
    let failedOnce = false;
    const feed = new ChangeFeedConsumer({
      ...localFeed,
      streamsClient: streams,
      streamArn: events.streamArn as string,
      checkpoints: new MemoryCheckpointStore(),
    });
    await runChangeFeed(feed, {
      projections: { summaries: projection },
      onBatch: (result, batch) => {
        seen.push(...batch.records.map((record) => record.dynamodb?.SequenceNumber as string));
        // A side effect of the second record failed the first time: it and what follows come again.
        if (!failedOnce && batch.records.length > 1) {
          failedOnce = true;
          result.failedRecords.push(1);
        }
      },
    });
    expect(failedOnce).toBe(true);
    const [first, second, third] = [...new Set(seen)];
    expect(seen).toEqual([first, second, third, second, third]);
    expect(await summaries.get({ orderId: 'o-7' }, { consistent: true })).toMatchObject(foldSummary('o-7', await stream.read({ orderId: 'o-7' })));
  });
});
