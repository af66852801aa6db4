/**
 * A reaction's effects happen once per source event, whatever the delivery: redelivered, out of order,
 * concurrent, with gaps, the same target commanded by several events of one write; and a process that
 * remembers the progress it wrote where another process wrote since.
 */
import { eventsTableDefinition } from 'dynafold';
import { OutboxRelay, outboxTableDefinition, type OutboxMessage } from 'dynafold/outbox';
import { Reaction, append, command, message, reactionsTableDefinition } from 'dynafold/reactions';
import { createTestTable, testClient } from '../support/dynamo';
import { countRequests } from '../support/requests';
import { reservations, reserve, reservingShop, shopOrders, stockStream, type ShopOrderEvent } from '../support/shop';

const client = testClient();
const requests = countRequests(client);
let eventsTable: string;
let reactionsTable: string;
let outboxTable: string;
let runs = 0;

beforeAll(async () => {
  eventsTable = (await createTestTable(client, eventsTableDefinition, 'reaction-events')).name;
  reactionsTable = (await createTestTable(client, reactionsTableDefinition, 'reactions')).name;
  outboxTable = (await createTestTable(client, outboxTableDefinition, 'reaction-outbox')).name;
});
afterAll(() => client.destroy());

/** A shop whose reaction reserves the stock of every order event with a quantity, under names of its own. */
function shop() {
  const run = ++runs;
  const { orders, stock, reaction } = reservingShop(
    client,
    { events: eventsTable, reactions: reactionsTable },
    { orders: `Order${run}`, stock: `Stock${run}`, reaction: `reserve-${run}` },
  );
  // `process()`: another process of the same reaction, with its own memory of the progress it wrote.
  return { orders, stock, reaction: reaction(), process: reaction };
}

test('each event reserves once; a redelivery writes nothing', async () => {
  const { orders, stock, reaction } = shop();
  const { events } = await orders.append({ orderId: 'o-1' }, [
    { type: 'OrderPlaced', data: { sku: 'pen', quantity: 1 } },
    { type: 'ItemAdded', data: { sku: 'pen', quantity: 2 } },
    { type: 'ItemAdded', data: { sku: 'ink', quantity: 3 } },
  ]);
  const first = await reaction.applyBatch(events);
  expect(first.outcomes).toHaveLength(1);
  expect(first.outcomes[0]).toMatchObject({ status: 'applied', applied: events });
  const again = await reaction.applyBatch([...events].reverse());
  expect(again.outcomes[0]).toMatchObject({ status: 'applied', applied: [], alreadyApplied: events });
  expect(await reservations(stock, 'pen')).toEqual(['o-1@1', 'o-1@2']);
  expect(await reservations(stock, 'ink')).toEqual(['o-1@3']);
  expect(await reaction.readModel.get({ source: `${orders.name}#o-1` }, { consistent: true })).toMatchObject({ version: 3 });
});

test('an event delivered alone reacts to the events before it first, read from the store', async () => {
  const { orders, stock, reaction } = shop();
  const { events } = await orders.append({ orderId: 'o-2' }, [
    { type: 'OrderPlaced', data: { sku: 'pen', quantity: 1 } },
    { type: 'ItemAdded', data: { sku: 'pen', quantity: 2 } },
  ]);
  const last = events[1] as ShopOrderEvent;
  const { outcomes } = await reaction.applyBatch([last]);
  expect(outcomes[0]?.applied.map((event) => event.version)).toEqual([1, 2]);
  expect(await reservations(stock, 'pen')).toEqual(['o-2@1', 'o-2@2']);
});

test('concurrent calls with the same events: each reservation once', async () => {
  const { orders, stock, reaction } = shop();
  const all: ShopOrderEvent[] = [];
  for (let n = 1; n <= 6; n++) {
    const { events } = await orders.append({ orderId: `o-${n}` }, [
      { type: 'OrderPlaced', data: { sku: 'pen', quantity: n } },
      { type: 'ItemAdded', data: { sku: n % 2 === 0 ? 'pen' : 'ink', quantity: 1 } },
    ]);
    all.push(...events);
  }
  const results = await Promise.all(Array.from({ length: 4 }, (_unused, lane) => reaction.applyBatch(lane % 2 === 0 ? all : [...all].reverse())));
  const applied = results.flatMap((result) =>
    result.outcomes.flatMap((outcome) => outcome.applied.map((event) => `${event.streamId}@${event.version}`)),
  );
  expect(applied.sort()).toEqual(all.map((event) => `${event.streamId}@${event.version}`).sort());
  const pen = await reservations(stock, 'pen');
  const ink = await reservations(stock, 'ink');
  expect([...pen, ...ink].sort()).toEqual(all.map((event) => `${event.streamId}@${event.version}`).sort());
});

test('one write reserves the same stock for several events: each decides on the reservations before it', async () => {
  const { orders, stock, reaction } = shop();
  const { events } = await orders.append({ orderId: 'o-same' }, [
    { type: 'OrderPlaced', data: { sku: 'ink', quantity: 1 } },
    ...Array.from({ length: 5 }, () => ({ type: 'ItemAdded' as const, data: { sku: 'ink', quantity: 1 } })),
  ]);
  const { outcomes, stats } = await reaction.applyBatch(events);
  expect(outcomes[0]?.applied).toHaveLength(6);
  expect(stats.rowsWritten).toBe(1);
  const stocked = await stock.read({ sku: 'ink' });
  expect(stocked.map((event) => event.version)).toEqual([1, 2, 3, 4, 5, 6]);
});

test("an event's effects past one transaction fail it; events whose effects fill several transactions take several writes", async () => {
  const run = ++runs;
  const orders = shopOrders(client, eventsTable, `Order${run}`);
  const stock = stockStream(client, eventsTable, `Stock${run}`);
  const reaction = new Reaction({
    name: `fan-out-${run}`,
    streams: [orders],
    client,
    table: reactionsTable,
    // One command per unit of quantity, each on a stock of its own.
    react: (event) =>
      event.type === 'ItemAdded'
        ? Array.from({ length: event.data.quantity }, (_unused, n) =>
            command(stock, { sku: `${event.data.sku}-${n}` }, reserve(event.streamId, event.version, 1)),
          )
        : undefined,
  });
  const fits = await orders.append({ orderId: 'wide' }, [
    { type: 'ItemAdded', data: { sku: 'a', quantity: 60 } },
    { type: 'ItemAdded', data: { sku: 'b', quantity: 60 } },
  ]);
  const { outcomes, stats } = await reaction.applyBatch(fits.events);
  expect(outcomes[0]?.applied).toHaveLength(2);
  expect(stats.rowsWritten).toBe(2);
  expect(await reservations(stock, 'b-59')).toEqual(['wide@2']);
  const tooWide = await orders.append({ orderId: 'too-wide' }, [{ type: 'ItemAdded', data: { sku: 'c', quantity: 100 } }]);
  const failed = await reaction.applyBatch(tooWide.events);
  expect(failed.outcomes[0]).toMatchObject({ status: 'failed', error: { code: 'store.transactionLimit' } });
  expect(await stock.read({ sku: 'c-0' })).toEqual([]);
});

test('`since`: events before it move the progress without effects; `filter`: events it leaves out are never read or written', async () => {
  const run = ++runs;
  const orders = shopOrders(client, eventsTable, `Order${run}`);
  const stock = stockStream(client, eventsTable, `Stock${run}`);
  const before = await orders.append({ orderId: 'old' }, [{ type: 'OrderPlaced', data: { sku: 'pen', quantity: 1 } }]);
  const since = Date.parse((before.events[0] as ShopOrderEvent).timestamp) + 1;
  await new Promise((resolve) => setTimeout(resolve, 5));
  const after = await orders.append({ orderId: 'old' }, [
    { type: 'ItemAdded', data: { sku: 'pen', quantity: 2 } },
    { type: 'PaymentReceived', data: { amount: 3 } },
  ]);
  const reaction = new Reaction({
    name: `since-${run}`,
    streams: [orders],
    client,
    table: reactionsTable,
    since,
    filter: (event) => event.type !== 'PaymentReceived',
    react: (event) =>
      event.type === 'PaymentReceived'
        ? (() => {
            throw new Error('filtered out');
          })()
        : event.type === 'OrderPlaced' || event.type === 'ItemAdded'
          ? command(stock, { sku: event.data.sku }, reserve(event.streamId, event.version, event.data.quantity))
          : undefined,
  });
  const { outcomes, ignored } = await reaction.applyBatch([...before.events, ...after.events]);
  expect(ignored).toEqual([2]);
  expect(outcomes[0]?.applied.map((event) => event.version)).toEqual([1, 2]);
  expect(await reservations(stock, 'pen')).toEqual(['old@2']);
});

test('backfill reacts to every event of the history once; catchUp to those of one instance', async () => {
  const run = ++runs;
  const orders = shopOrders(client, eventsTable, `Order${run}`);
  const stock = stockStream(client, eventsTable, `Stock${run}`);
  const expected: string[] = [];
  for (let n = 1; n <= 4; n++) {
    const { events } = await orders.append({ orderId: `h-${n}` }, [
      { type: 'OrderPlaced', data: { sku: 'pen', quantity: n } },
      { type: 'ItemAdded', data: { sku: 'pen', quantity: 1 } },
    ]);
    expected.push(...events.map((event) => `${event.streamId}@${event.version}`));
  }
  const reaction = new Reaction({
    name: `history-${run}`,
    streams: [orders],
    client,
    table: reactionsTable,
    react: (event) =>
      event.type === 'OrderPlaced' || event.type === 'ItemAdded'
        ? command(stock, { sku: event.data.sku }, reserve(event.streamId, event.version, event.data.quantity))
        : undefined,
  });
  const caught = await reaction.catchUp(orders, { orderId: 'h-1' });
  expect(caught?.applied.map((event) => event.version)).toEqual([1, 2]);
  const progress = await reaction.backfill({ segments: 2, run: `history-${run}` });
  expect(progress.done).toBe(true);
  // A second backfill finds every effect written.
  await reaction.backfill({ segments: 2, run: `history-${run}-again` });
  expect((await reservations(stock, 'pen')).sort()).toEqual(expected.sort());
});

test("appends and outbox messages go with the progress; the relay publishes a source instance's messages in its events' order", async () => {
  const run = ++runs;
  const orders = shopOrders(client, eventsTable, `Order${run}`);
  const audit = stockStream(client, eventsTable, `Audit${run}`);
  const reaction = new Reaction({
    name: `notify-${run}`,
    streams: [orders],
    client,
    table: reactionsTable,
    react: (event) => [
      message(outboxTable, { type: event.type, order: event.streamId, version: event.version }),
      append(audit, { sku: 'log' }, [{ type: 'Restocked', data: { quantity: event.version } }]),
    ],
  });
  const { events } = await orders.append({ orderId: 'm-1' }, [
    { type: 'OrderPlaced', data: { sku: 'pen', quantity: 1 } },
    { type: 'ItemAdded', data: { sku: 'pen', quantity: 1 } },
    { type: 'OrderCancelled', data: {} },
  ]);
  await reaction.applyBatch([events[2] as ShopOrderEvent]);
  await reaction.applyBatch(events);
  const published: OutboxMessage[] = [];
  const relay = new OutboxRelay({ client, table: outboxTable, publish: async (entry) => void published.push(entry) });
  await relay.drainAll();
  const mine = published.filter((entry) => entry.projection === reaction.name);
  expect(mine.map((entry) => entry.message)).toEqual(events.map((event) => ({ type: event.type, order: 'm-1', version: event.version })));
  expect(mine.map((entry) => entry.id)).toEqual(events.map((event) => `${orders.name}#m-1@${event.version}#0`));
  expect((await audit.read({ sku: 'log' })).map((event) => event.data)).toEqual([{ quantity: 1 }, { quantity: 2 }, { quantity: 3 }]);
});

// A process remembers the progress it wrote, so an instance's next event reads none, and its first event
// reads none either (there is no progress before it). The transaction's condition on the progress row is
// what keeps that safe: a row another process wrote since, or one there after all (a redelivery in a fresh
// process), fails the write, which reads the row at once and goes on from it.

/** Appends of one event to an order: its placing, an item added. */
function appendsTo(orders: ReturnType<typeof shop>['orders']) {
  const one = async (orderId: string, type: 'OrderPlaced' | 'ItemAdded') =>
    (await orders.append({ orderId }, [{ type, data: { sku: 'pen', quantity: 1 } }])).events;
  return { placed: (orderId: string) => one(orderId, 'OrderPlaced'), added: (orderId: string) => one(orderId, 'ItemAdded') };
}

const progressReads = () => requests.count('GetItemCommand') + requests.count('BatchGetItemCommand');

test("a process reads no progress: not before an instance's first event, nor before the next ones it wrote the progress of", async () => {
  const { orders, stock, process } = shop();
  const { placed, added } = appendsTo(orders);
  const reaction = process();
  const first = await placed('o-1');
  requests.reset();
  expect((await reaction.applyBatch(first)).outcomes[0]).toMatchObject({ status: 'applied', applied: first });
  expect(progressReads()).toBe(0);
  expect(requests.count('TransactWriteItemsCommand')).toBe(1);
  for (let n = 0; n < 3; n++) {
    const next = await added('o-1');
    requests.reset();
    expect((await reaction.applyBatch(next)).outcomes[0]).toMatchObject({ status: 'applied', applied: next });
    expect(progressReads()).toBe(0);
    expect(requests.count('TransactWriteItemsCommand')).toBe(1);
    expect(requests.failures.size).toBe(0);
  }
  expect(await reservations(stock, 'pen')).toEqual(['o-1@1', 'o-1@2', 'o-1@3', 'o-1@4']);
});

test("another process's write in between fails the remembered progress's write: the row is read at once and each event reserves once", async () => {
  const { orders, stock, process } = shop();
  const { placed, added } = appendsTo(orders);
  const here = process();
  const there = process();
  await here.applyBatch(await placed('o-2'));
  await there.applyBatch(await added('o-2'));
  const third = await added('o-2');
  requests.reset();
  const { outcomes } = await here.applyBatch(third);
  expect(outcomes[0]).toMatchObject({ status: 'applied', applied: third });
  expect(requests.failures.get('TransactWriteItemsCommand:TransactionCanceledException')).toBe(1);
  expect(requests.count('GetItemCommand')).toBe(1);
  expect(await reservations(stock, 'pen')).toEqual(['o-2@1', 'o-2@2', 'o-2@3']);
  // What it read and wrote then is remembered: the next event reads nothing.
  const fourth = await added('o-2');
  requests.reset();
  await here.applyBatch(fourth);
  expect(progressReads()).toBe(0);
  expect(requests.failures.size).toBe(0);
});

test("a fresh process given an instance's first event again finds its progress there after all, and writes nothing", async () => {
  const { orders, stock, process } = shop();
  const { placed, added } = appendsTo(orders);
  const first = await placed('o-3');
  await process().applyBatch([...first, ...(await added('o-3'))]);
  const { outcomes } = await process().applyBatch(first);
  expect(outcomes[0]).toMatchObject({ status: 'applied', applied: [], alreadyApplied: first });
  expect(await reservations(stock, 'pen')).toEqual(['o-3@1', 'o-3@2']);
});
