/**
 * A reaction's effects happen once per source event, whatever the delivery: redelivered, out of order,
 * concurrent, with gaps, the same target commanded by several events of one write.
 */
import { eventsTableDefinition } from 'dynafold';
import { Reaction, command, reactionsTableDefinition } from 'dynafold/reactions';
import { createTestTable, testClient } from '../support/dynamo';
import { reservations, reserve, shopOrders, stockStream, type ShopOrderEvent } from '../support/shop';

const client = testClient();
let eventsTable: string;
let reactionsTable: string;
let runs = 0;

beforeAll(async () => {
  eventsTable = (await createTestTable(client, eventsTableDefinition, 'reaction-events')).name;
  reactionsTable = (await createTestTable(client, reactionsTableDefinition, 'reactions')).name;
});
afterAll(() => client.destroy());

/** A shop whose reaction reserves the stock of every order event with a quantity, under names of its own. */
function shop() {
  const run = ++runs;
  const orders = shopOrders(client, eventsTable, `Order${run}`);
  const stock = stockStream(client, eventsTable, `Stock${run}`);
  const reaction = new Reaction({
    name: `reserve-${run}`,
    streams: [orders],
    client,
    table: reactionsTable,
    react: (event) =>
      event.type === 'OrderPlaced' || event.type === 'ItemAdded'
        ? command(stock, { sku: event.data.sku }, reserve(event.streamId, event.version, event.data.quantity))
        : undefined,
  });
  return { orders, stock, reaction };
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
