import { eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { ChangeFeedConsumer, runBatches, runChangeFeed, type ChangeFeedLogger, type StartingPosition } from 'dynafold/feed';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream } from '../support/orders';
import { createCheckpointStore, createStreamedTable, keysOf, streamsClient, waitFor, writeItems, localFeed } from './support';

// The states users start in: a service whose events table has no record yet when its feed starts, and a
// consumer restarted on a shard that then stays idle, while other tables of the same DynamoDB Local are
// written (DynamoDB Local numbers stream records with one counter across all of them).
const client = testClient();
const streams = streamsClient();

afterAll(() => {
  client.destroy();
  streams.destroy();
});

/** A logger that keeps what the feed logs at info and above, to show the rule at work. */
function recordingLogger(): ChangeFeedLogger & { readonly lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (a: unknown, b?: unknown) => lines.push(`${level} ${typeof a === 'string' ? a : String(b)}`);
  return { lines, debug: () => undefined, info: keep('info'), warn: keep('warn'), error: keep('error') };
}

describe.each<StartingPosition>(['TRIM_HORIZON', 'LATEST'])('a feed started at %s on an empty events table', (startingPosition) => {
  it('projects every event appended after start, by several writers, while other tables are written, and stays running', async () => {
    const events = await createTestTable(client, eventsTableDefinition, 'idle-events');
    const stream = orderStream(client, events.name);
    const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'idle-views')).name;
    const summaries = orderSummaries(client, views);
    const { store } = await createCheckpointStore(client);
    const logger = recordingLogger();
    const feed = new ChangeFeedConsumer({
      ...localFeed,
      streamsClient: streams,
      streamArn: events.streamArn as string,
      consumer: `idle-${startingPosition}`,
      checkpoints: store,
      startingPosition,
      logger,
    });
    const run = runChangeFeed(feed, { projections: { summaries: orderSummaryProjection(stream, summaries) } });
    // The shard has been polled empty (its iterator taken) before anything else happens.
    await waitFor(
      () => feed.status().state === 'running' && feed.status().shards.some((shard) => shard.state === 'reading'),
      10_000,
      'the feed to poll',
    );

    const other = await createStreamedTable(client, 'idle-other');
    await writeItems(client, other.table, 'elsewhere', 0, 5);
    const orderIds = ['o-1', 'o-2', 'o-3', 'o-4'];
    await Promise.all(
      orderIds.map(async (orderId, writer) => {
        await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: `c-${writer}` } }]);
        await writeItems(client, other.table, `between-${writer}`, 0, 2);
        await stream.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 'a', price: writer + 1 } }]);
        await stream.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 'b', price: 10 } }]);
      }),
    );

    await waitFor(
      async () => {
        const rows = await Promise.all(
          orderIds.map(async (orderId) => ({ row: await summaries.get({ orderId }, { consistent: true }), history: await stream.read({ orderId }) })),
        );
        return rows.every(({ row, history }) => row !== undefined && row.version === history.length);
      },
      20_000,
      'every row to reach its fold',
    );
    for (const orderId of orderIds) {
      expect(await summaries.get({ orderId }, { consistent: true })).toMatchObject(foldSummary(orderId, await stream.read({ orderId })));
    }
    expect(feed.status()).toMatchObject({ state: 'running', error: undefined });
    await feed.stop();
    await run;
    expect(logger.lines.filter((line) => line.startsWith('error'))).toEqual([]);
  });
});

describe('a consumer restarted on a shard that stays idle while other tables are written', () => {
  it('reads the next record after its checkpoint and stays running', async () => {
    const { table, streamArn } = await createStreamedTable(client, 'idle-restart');
    const { store } = await createCheckpointStore(client);
    const options = { streamsClient: streams, streamArn, checkpoints: store, consumer: 'idle-restart', ...localFeed };
    await writeItems(client, table, 'r', 0, 3);
    const first = new ChangeFeedConsumer(options);
    const firstSeen: string[] = [];
    for await (const batch of first) {
      firstSeen.push(...keysOf(batch));
      await batch.commit();
      if (firstSeen.length >= 3) break;
    }
    expect(firstSeen).toEqual(['r:0', 'r:1', 'r:2']);

    const second = new ChangeFeedConsumer(options);
    const secondSeen: string[] = [];
    const run = runBatches(second, async (batch) => {
      secondSeen.push(...keysOf(batch));
      return { batchItemFailures: [] };
    });
    await waitFor(() => second.status().shards.some((shard) => shard.state === 'reading'), 10_000, 'the restarted feed to poll');
    const other = await createStreamedTable(client, 'idle-restart-other');
    await writeItems(client, other.table, 'elsewhere', 0, 8);
    await writeItems(client, table, 'r', 3, 5);
    await waitFor(() => secondSeen.length >= 2, 10_000, 'the records after the checkpoint');
    expect(secondSeen).toEqual(['r:3', 'r:4']);
    expect(second.status()).toMatchObject({ state: 'running', error: undefined });
    await second.stop();
    await run;
  });
});
