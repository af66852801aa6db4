import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynafoldError,
  EventStream,
  MultiSourceProjection,
  Projection,
  ReadModel,
  ReadYourWritesTimeoutError,
  ValidationError,
  eventsTableDefinition,
  readModelTableDefinition,
} from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';

const client = testClient();
const reads = countingClient();
afterAll(() => {
  client.destroy();
  reads.client.destroy();
});

const orderEvents = {
  OrderPlaced: z.object({ customer: z.string() }),
  ItemAdded: z.object({ sku: z.string(), price: z.number() }),
};
const summarySchema = z.object({ orderId: z.string(), customer: z.string(), items: z.number(), total: z.number(), version: z.number() });
const customerSchema = z.object({ customer: z.string(), orders: z.number() });
type Summary = z.output<typeof summarySchema>;

/** A client on the same DynamoDB Local that counts the GetItem requests sent through it. */
function countingClient(): { client: DynamoDBClient; gets: () => number } {
  const counting = testClient();
  let gets = 0;
  counting.middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName === 'GetItemCommand') gets++;
      return next(args);
    },
    { step: 'initialize' },
  );
  return { client: counting, gets: () => gets };
}

async function setUp(readClient: DynamoDBClient = client) {
  const events = await createTestTable(client, eventsTableDefinition, 'ryw-events');
  const orders = new EventStream({ client, table: events.name, name: 'Order', streamId: ['orderId'], events: orderEvents });
  const model = (table: string) =>
    new ReadModel({ client: readClient, table, name: 'OrderSummary', schema: summarySchema, key: { pk: { field: 'pk', composite: ['orderId'] } } });
  const customerModel = (table: string) =>
    new ReadModel({ client: readClient, table, name: 'Customer', schema: customerSchema, key: { pk: { field: 'pk', composite: ['customer'] } } });
  const views = await createTestTable(client, (name) => readModelTableDefinition(name, [model(name), customerModel(name)]), 'ryw-views');
  const summaries = new Projection({
    stream: orders,
    readModel: model(views.name),
    key: (id) => ({ orderId: id.orderId }),
    initial: (id, event) => ({
      orderId: id.orderId,
      customer: event.type === 'OrderPlaced' ? event.data.customer : '?',
      items: 0,
      total: 0,
      version: 0,
    }),
    evolve: (state: Summary, event) =>
      event.type === 'ItemAdded' ? { ...state, items: state.items + 1, total: state.total + event.data.price } : state,
    checkpoint: 'version',
  });
  const customers = new MultiSourceProjection({
    readModel: customerModel(views.name),
    sources: { orders: { stream: orders, key: (_id, event) => (event.type === 'OrderPlaced' ? { customer: event.data.customer } : undefined) } },
    initial: (key) => ({ customer: String(key['customer']), orders: 0 }),
    evolve: (state: z.output<typeof customerSchema>) => ({ ...state, orders: state.orders + 1 }),
  });
  return { orders, summaries, customers };
}

/** A stand-in for a projector that lags: applies the stream's events to the projections every `everyMs`, until stopped. */
function lagging(apply: () => Promise<unknown>, everyMs: number): { stop: () => Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await delay(everyMs);
      await apply();
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

test('a wait that runs out of time throws a typed error naming the version it saw, or answers the stale row', async () => {
  const { orders, summaries } = await setUp();
  const placed = await orders.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  await summaries.applyBatch(placed.events);
  const added = await orders.append({ orderId: 'o-1' }, [{ type: 'ItemAdded', data: { sku: 'a', price: 5 } }]);

  const started = Date.now();
  const error = await summaries.waitFor({ orderId: 'o-1' }, { version: added.version, timeoutMs: 150 }).catch((e: unknown) => e);
  expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  expect(error).toBeInstanceOf(ReadYourWritesTimeoutError);
  expect(error).toMatchObject({ code: 'projector.waitTimeout', version: 2, seenVersion: 1, key: { orderId: 'o-1' }, status: 504 });
  expect(DynafoldError.is(error, 'projector.waitTimeout') && error.toProblem().status).toBe(504);

  const stale = await summaries.waitFor({ orderId: 'o-1' }, { version: 2, timeoutMs: 100, onTimeout: 'stale' });
  expect(stale).toMatchObject({ fresh: false, version: 1, row: { orderId: 'o-1', items: 0, version: 1 } });

  // A row that does not exist yet times out with no version seen.
  await expect(summaries.waitFor({ orderId: 'o-404' }, { version: 1, timeoutMs: 50 })).rejects.toMatchObject({ seenVersion: undefined });
  const missing = await summaries.waitFor({ orderId: 'o-404' }, { version: 1, timeoutMs: 50, onTimeout: 'stale' });
  expect(missing).toEqual({ key: { orderId: 'o-404' }, row: undefined, fresh: false, version: undefined });
});

test('a wait succeeds once a projector applying concurrently catches up, reading again with backoff meanwhile', async () => {
  const { orders, summaries } = await setUp(reads.client);
  const id = { orderId: 'o-2' };
  await orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'bo' } }]);
  const { version } = await orders.append(id, [
    { type: 'ItemAdded', data: { sku: 'a', price: 2 } },
    { type: 'ItemAdded', data: { sku: 'b', price: 3 } },
  ]);

  const waiting = summaries.waitFor(id, { streamId: id, version, timeoutMs: 10_000 });
  // The projector applies only after the wait has found the row missing twice.
  const before = reads.gets();
  const deadline = Date.now() + 10_000;
  while (reads.gets() - before < 2 && Date.now() < deadline) await delay(5);
  expect(reads.gets() - before).toBeGreaterThanOrEqual(2);
  await summaries.catchUp(id);
  const caught = await waiting;
  expect(caught).toMatchObject({ fresh: true, version: 3, row: { orderId: 'o-2', items: 2, total: 5, version: 3 } });
});

test('append and execute with waitFor resolve once every named projection shows the write, with the rows', async () => {
  const { orders, summaries, customers } = await setUp();
  const id = { orderId: 'o-3' };
  const projector = lagging(async () => {
    const events = await orders.read(id);
    await Promise.all([summaries.applyBatch(events), customers.applyBatch(events)]);
  }, 30);
  try {
    const placed = await orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'cy' } }], {
      expectedVersion: 0,
      waitFor: { projections: [summaries, customers], timeoutMs: 10_000 },
    });
    expect(placed.projected?.[summaries.name]).toEqual([
      expect.objectContaining({ fresh: true, version: 1, row: expect.objectContaining({ items: 0 }) }),
    ]);
    expect(placed.projected?.[customers.name]).toEqual([
      expect.objectContaining({ fresh: true, version: 1, row: expect.objectContaining({ orders: 1 }) }),
    ]);

    const executed = await orders.execute(
      id,
      {
        initial: { items: 0 },
        evolve: (state, event) => (event.type === 'ItemAdded' ? { items: state.items + 1 } : state),
        decide: () => [{ type: 'ItemAdded', data: { sku: 'c', price: 7 } }],
      },
      { waitFor: [summaries, customers] },
    );
    // ItemAdded feeds no customer row: only the summary is waited for.
    expect(executed.projected).toEqual({
      [summaries.name]: [expect.objectContaining({ fresh: true, version: 2, row: expect.objectContaining({ items: 1, total: 7 }) })],
      [customers.name]: [],
    });
  } finally {
    await projector.stop();
  }
  // A multi-source row is waited for by its source instance.
  const customer = await customers.waitFor({ customer: 'cy' }, { stream: orders, streamId: id, version: 1, timeoutMs: 0 });
  expect(customer).toMatchObject({ fresh: true, row: { orders: 1 } });
  await expect(
    customers.waitFor({ customer: 'cy' }, { stream: orders, streamId: { orderId: 'o-other' }, version: 1, timeoutMs: 0 }),
  ).rejects.toBeInstanceOf(ReadYourWritesTimeoutError);
});

test('bad wait options are the caller’s ValidationError; the write of an append that times out stays', async () => {
  const { orders, summaries } = await setUp();
  await expect(summaries.waitFor({ orderId: 'o-4' }, { version: 0 })).rejects.toBeInstanceOf(ValidationError);
  await expect(summaries.waitFor({ orderId: 'o-4' }, { version: 1, timeoutMs: -1 })).rejects.toBeInstanceOf(ValidationError);
  await expect(summaries.waitFor({ orderId: 'o-4' }, { version: 1, onTimeout: 'never' as 'stale' })).rejects.toBeInstanceOf(ValidationError);
  await expect(
    orders.append({ orderId: 'o-4' }, [{ type: 'OrderPlaced', data: { customer: 'di' } }], { waitFor: { projections: [summaries], timeoutMs: 20 } }),
  ).rejects.toBeInstanceOf(ReadYourWritesTimeoutError);
  expect(await orders.version({ orderId: 'o-4' })).toBe(1);
});
