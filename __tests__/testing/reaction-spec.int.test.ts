import { Reaction, command } from 'dynafold/reactions';
import { SpecAssertionError, reactionSpec, type ReactionSpecTables } from 'dynafold/testing';
import { PAYMENT_DUE_MS, checkoutStreams, checkoutWorkflow } from '../support/checkout';
import { reserve, shopOrders, stockStream } from '../support/shop';

/** The shop's reaction on a spec's tables; `sideEffect`: a handler that appends itself, as a hand-written one would. */
function shop(tables: ReactionSpecTables, sideEffect = false) {
  const orders = shopOrders(tables.client, tables.events, 'Order');
  const stock = stockStream(tables.client, tables.events, 'Stock');
  const reaction = new Reaction({
    name: 'reserve',
    streams: [orders],
    client: tables.client,
    table: tables.reactions,
    react: async (event) => {
      if (event.type !== 'OrderPlaced' && event.type !== 'ItemAdded') return undefined;
      const decider = reserve(event.streamId, event.version, event.data.quantity);
      if (!sideEffect) return command(stock, { sku: event.data.sku }, decider);
      await stock.execute({ sku: event.data.sku }, decider);
      return undefined;
    },
  });
  return { reaction, targets: [stock] };
}

const given = [
  { streamId: { orderId: 'o-1' }, events: [{ type: 'OrderPlaced', data: { sku: 'pen', quantity: 1 } }] },
  { streamId: { orderId: 'o-2' }, events: [{ type: 'OrderPlaced', data: { sku: 'paper', quantity: 2 } }] },
  { streamId: { orderId: 'o-1' }, events: [{ type: 'ItemAdded', data: { sku: 'ink', quantity: 3 } }] },
];

const reserved = [
  { stream: 'Stock', streamId: { sku: 'pen' }, events: [{ type: 'Reserved', data: { orderId: 'o-1', version: 1, quantity: 1 } }] },
  { stream: 'Stock', streamId: { sku: 'ink' }, events: [{ type: 'Reserved', data: { orderId: 'o-1', version: 2, quantity: 3 } }] },
  { stream: 'Stock', streamId: { sku: 'paper' }, events: [{ type: 'Reserved', data: { orderId: 'o-2', version: 1, quantity: 2 } }] },
];

test('a reaction spec delivers the events every way Lambda may, and finds every reservation once', async () => {
  const result = await reactionSpec((tables) => shop(tables))
    .given(given)
    .thenEvents(reserved);
  expect(result.deliveries.map((delivery) => delivery.mode)).toEqual(['inOrder', 'shuffled', 'duplicated', 'lanes']);
  expect(result.deliveries.every((delivery) => delivery.applied === 3)).toBe(true);
});

test('a handler that writes itself is caught: its fold runs again after a lost race, and writes twice', async () => {
  await expect(
    reactionSpec((tables) => shop(tables, true), { deliveries: ['duplicated'], seed: 3 })
      .given(given)
      .thenEvents(reserved),
  ).rejects.toThrow(SpecAssertionError);
});

test('a workflow spec moves the clock: an unpaid order is cancelled once, 30 minutes on; not a minute before', async () => {
  const build = (tables: ReactionSpecTables) => {
    const streams = checkoutStreams(tables.client, tables.events);
    return { reaction: checkoutWorkflow(tables.client, tables, streams, tables.clock).workflow, targets: [streams.orders, streams.shipments] };
  };
  const placed = [{ stream: 'CheckoutOrder', streamId: { orderId: 'o-1' }, events: [{ type: 'OrderPlaced', data: { amount: 5 } }] }];
  const early = await reactionSpec(build, { deliveries: ['inOrder', 'duplicated'] })
    .given(placed)
    .after(PAYMENT_DUE_MS - 60_000)
    .thenEvents([{ stream: 'CheckoutOrder', streamId: { orderId: 'o-1' }, events: [{ type: 'OrderPlaced', data: { amount: 5 } }] }]);
  expect(early.deliveries.map((delivery) => delivery.fired)).toEqual([0, 0]);
  const late = await reactionSpec(build, { deliveries: ['inOrder', 'lanes'] })
    .given(placed)
    .after(PAYMENT_DUE_MS - 60_000)
    .after(2 * 60_000)
    .thenEvents([
      {
        stream: 'CheckoutOrder',
        streamId: { orderId: 'o-1' },
        events: [
          { type: 'OrderPlaced', data: { amount: 5 } },
          { type: 'OrderCancelled', data: { reason: 'payment not received in time' } },
        ],
      },
      { stream: 'Shipment', streamId: { orderId: 'o-1' }, events: [] },
    ]);
  expect(late.deliveries.map((delivery) => delivery.fired)).toEqual([1, 1]);
});
