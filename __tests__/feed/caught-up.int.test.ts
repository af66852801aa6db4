/**
 * Knowing where the feed stands: `whenCaughtUp()` on a service whose first write comes after start,
 * `stopWhenCaughtUp` for a script over a backlog, and a warning for a batch nobody acknowledges.
 */
import { eventsTableDefinition, readModelTableDefinition, type Logger } from 'dynafold';
import { ChangeFeedConsumer, MemoryCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream } from '../support/orders';
import { createStreamedTable, streamsClient, waitFor, writeItems, localFeed } from './support';

const client = testClient();
const streams = streamsClient();

afterAll(() => {
  client.destroy();
  streams.destroy();
});

async function ordersWorld() {
  const events = await createTestTable(client, eventsTableDefinition, 'caught-events');
  const stream = orderStream(client, events.name);
  const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'caught-views')).name;
  const summaries = orderSummaries(client, views);
  return { streamArn: events.streamArn as string, stream, summaries, projection: orderSummaryProjection(stream, summaries) };
}

async function placeOrders(stream: ReturnType<typeof orderStream>, orderIds: ReadonlyArray<string>): Promise<void> {
  for (const orderId of orderIds) {
    await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: orderId } }]);
    await stream.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }]);
  }
}

async function expectRowsFolded(world: Awaited<ReturnType<typeof ordersWorld>>, orderIds: ReadonlyArray<string>): Promise<void> {
  for (const orderId of orderIds) {
    expect(await world.summaries.get({ orderId }, { consistent: true })).toMatchObject(foldSummary(orderId, await world.stream.read({ orderId })));
  }
}

test('whenCaughtUp on a service started on an empty table: resolves while idle, and after later writes only once their rows are projected', async () => {
  const world = await ordersWorld();
  const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn: world.streamArn, checkpoints: new MemoryCheckpointStore() });
  const running = runChangeFeed(feed, { projections: { summaries: world.projection } });
  try {
    await feed.whenCaughtUp({ signal: AbortSignal.timeout(20_000) });
    await placeOrders(world.stream, ['a', 'b']);
    await feed.whenCaughtUp({ signal: AbortSignal.timeout(20_000) });
    await expectRowsFolded(world, ['a', 'b']);
    await placeOrders(world.stream, ['b', 'c']);
    await feed.whenCaughtUp({ signal: AbortSignal.timeout(20_000) });
    await expectRowsFolded(world, ['a', 'b', 'c']);
  } finally {
    await feed.stop();
    await running;
  }
});

test('runChangeFeed with stopWhenCaughtUp brings a backlog into the rows and resolves, the stream still enabled', async () => {
  const world = await ordersWorld();
  const orderIds = ['a', 'b', 'c', 'd'];
  await placeOrders(world.stream, orderIds);
  const feed = new ChangeFeedConsumer({
    ...localFeed,
    streamsClient: streams,
    streamArn: world.streamArn,
    checkpoints: new MemoryCheckpointStore(),
    batchSize: 3,
  });
  await runChangeFeed(feed, { projections: { summaries: world.projection }, stopWhenCaughtUp: true });
  expect(feed.status().state).toBe('ended');
  await expectRowsFolded(world, orderIds);
});

test('whenCaughtUp rejects with the abort once the feed is stopped first, and runChangeFeed refuses stopWhenCaughtUp on a feed without it', async () => {
  const { streamArn } = await createStreamedTable(client, 'caught-stop');
  const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, checkpoints: new MemoryCheckpointStore() });
  const waiting = feed.whenCaughtUp();
  await feed.stop();
  await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
  const plain = { stop: () => undefined, async *[Symbol.asyncIterator]() {} };
  await expect(runChangeFeed(plain, { projections: {}, stopWhenCaughtUp: true })).rejects.toMatchObject({ code: 'configuration' });
});

test('a batch neither committed nor completed is reported at warn after ten poll intervals, once', async () => {
  const { table, streamArn } = await createStreamedTable(client, 'caught-forgot');
  await writeItems(client, table, 'k', 0, 2);
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: unknown) => void warnings.push(String(message)),
    error: () => undefined,
  };
  const feed = new ChangeFeedConsumer({
    ...localFeed,
    streamsClient: streams,
    streamArn,
    checkpoints: new MemoryCheckpointStore(),
    pollIntervalMs: 30,
    logger,
  });
  const iterator = feed[Symbol.asyncIterator]();
  const batch = (await iterator.next()).value;
  expect(batch?.records).toHaveLength(2);
  await waitFor(() => warnings.some((message) => message.includes('neither committed nor completed')), 10_000, 'the warning');
  await batch?.commit();
  expect(warnings.filter((message) => message.includes('neither committed nor completed'))).toHaveLength(1);
  await iterator.return?.();
});
