import { z } from 'zod';
import { EventStream, MultiSourceProjection, ReadModel, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { projectionSpec } from 'dynafold/testing';
import { createTestTable, testClient } from '../support/dynamo';

// Randomized deliveries over several sources are the property tests' (__tests__/properties/multi-source).
const client = testClient();
afterAll(() => client.destroy());

const purchaseEvents = {
  Purchased: z.object({ customer: z.string(), amount: z.number() }),
};
const customerSchema = z.object({ customer: z.string(), purchases: z.number(), spent: z.number(), points: z.number() });
type Customer = z.output<typeof customerSchema>;

let purchases: EventStream<'Purchase', readonly ['purchaseId'], typeof purchaseEvents>;
let viewsTable: string;

function customerModel(name: string, table = viewsTable) {
  return new ReadModel({ client, table, name, schema: customerSchema, key: { pk: { field: 'pk', composite: ['customer'] } } });
}

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'events');
  purchases = new EventStream({ client, table: events.name, name: 'Purchase', streamId: ['purchaseId'], events: purchaseEvents });
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [customerModel('Customer', name)]), 'views')).name;
});

test('a row that would outgrow the item size with its per-instance checkpoints fails with a clear error', async () => {
  const model = customerModel('Crowded');
  const crowded = new MultiSourceProjection({
    readModel: model,
    sources: { purchases: { stream: purchases, key: () => ({ customer: 'everyone' }) } },
    initial: () => ({ customer: 'everyone', purchases: 0, spent: 0, points: 0 }),
    evolve: (state: Customer) => ({ ...state, purchases: state.purchases + 1 }),
  });
  const long = 'x'.repeat(900);
  // 480 instances with 900-character ids: their checkpoints alone pass 400 KB.
  const events = Array.from({ length: 480 }, (_, i) => ({
    streamName: 'Purchase',
    streamId: `${long}-${i}`,
    version: 1,
    type: 'Purchased' as const,
    data: { customer: 'everyone', amount: 1 },
    timestamp: new Date().toISOString(),
  }));
  const result = await crowded.applyBatch(events);
  expect(result.outcomes[0]).toMatchObject({ status: 'failed', error: { code: 'projector.rowTooLarge' } });
  expect(await model.get({ customer: 'everyone' }, { consistent: true })).toBeUndefined();
});

test('customer rows fed by many purchase streams, lanes racing on one row: each purchase applied once under every delivery (projection spec)', async () => {
  const purchase = (i: number) => ({ type: 'Purchased', data: { customer: i % 3 === 0 ? 'bo' : 'al', amount: i } });
  const result = await projectionSpec(
    ({ events, readModels }) =>
      new MultiSourceProjection({
        readModel: customerModel('SpecCustomer', readModels),
        sources: {
          purchases: {
            stream: new EventStream({ client, table: events, name: 'Purchase', streamId: ['purchaseId'], events: purchaseEvents }),
            key: (_id, event) => ({ customer: event.data.customer }),
          },
        },
        initial: (key) => ({ customer: String(key['customer']), purchases: 0, spent: 0, points: 0 }),
        evolve: (state: Customer, event) => ({ ...state, purchases: state.purchases + 1, spent: state.spent + event.data.amount }),
      }),
  )
    .given(Array.from({ length: 12 }, (_, i) => ({ stream: 'Purchase', streamId: `p-${i}`, events: [purchase(i)] })))
    .thenRows([
      { key: { customer: 'bo' }, row: { customer: 'bo', purchases: 4, spent: 0 + 3 + 6 + 9, points: 0 } },
      { key: { customer: 'al' }, row: { customer: 'al', purchases: 8, spent: 66 - 18, points: 0 } },
    ]);
  for (const delivery of result.deliveries) expect(delivery.applied).toBe(12);
});

describe('sources whose instances share an id', () => {
  const orderEvents = { Ordered: z.object({ amount: z.number() }) };
  const pointEvents = { Earned: z.object({ points: z.number() }) };
  const walletSchema = z.object({ customer: z.string(), orders: z.number(), spent: z.number(), points: z.number(), log: z.array(z.string()) });
  type Wallet = z.output<typeof walletSchema>;

  async function setUp(name: string) {
    const events = await createTestTable(client, eventsTableDefinition, 'shared-ids');
    const orders = new EventStream({ client, table: events.name, name: 'Order', streamId: ['customer'], events: orderEvents });
    const points = new EventStream({ client, table: events.name, name: 'Points', streamId: ['customer'], events: pointEvents });
    const model = new ReadModel({ client, table: viewsTable, name, schema: walletSchema, key: { pk: { field: 'pk', composite: ['customer'] } } });
    const wallets = new MultiSourceProjection({
      readModel: model,
      sources: {
        orders: { stream: orders, key: (id) => ({ customer: id.customer }) },
        points: { stream: points, key: (id) => ({ customer: id.customer }) },
      },
      initial: (key) => ({ customer: String(key['customer']), orders: 0, spent: 0, points: 0, log: [] as string[] }),
      evolve: (state: Wallet, event) => {
        const log = [...state.log, `${event.streamName}@${event.version}`];
        return event.type === 'Ordered'
          ? { ...state, orders: state.orders + 1, spent: state.spent + event.data.amount, log }
          : { ...state, points: state.points + event.data.points, log };
      },
    });
    return { orders, points, model, wallets };
  }

  test('Order c-1 and Points c-1 feeding one row: each instance folds its own events, once', async () => {
    const { orders, points, model, wallets } = await setUp('WalletShared');
    const ordered = await orders.append(
      { customer: 'c-1' },
      [1, 2, 3].map((amount) => ({ type: 'Ordered' as const, data: { amount } })),
    );
    const earned = await points.append(
      { customer: 'c-1' },
      [10, 20].map((value) => ({ type: 'Earned' as const, data: { points: value } })),
    );

    // Both instances' events in one call, the later versions only: each instance fills its own gap.
    const result = await wallets.applyBatch([ordered.events[2], earned.events[1]] as never);
    expect(result.outcomes).toHaveLength(1);
    const outcome = result.outcomes[0];
    expect(outcome?.status).toBe('applied');
    const applied = outcome?.status === 'applied' ? outcome.applied.map((event) => `${event.streamName}@${event.version}`) : [];
    expect([...applied].sort()).toEqual(['Order@1', 'Order@2', 'Order@3', 'Points@1', 'Points@2']);
    expect(outcome).toMatchObject({ sources: { 'Order#c-1': 3, 'Points#c-1': 2 } });

    const row = await model.get({ customer: 'c-1' }, { consistent: true });
    expect(row).toMatchObject({ orders: 3, spent: 6, points: 30 });
    expect([...(row?.log ?? [])].sort()).toEqual(['Order@1', 'Order@2', 'Order@3', 'Points@1', 'Points@2']);

    // A redelivery of everything applies nothing more.
    const again = await wallets.applyBatch([...ordered.events, ...earned.events] as never);
    expect(again.outcomes[0]).toMatchObject({ status: 'applied', applied: [] });
    expect((again.outcomes[0] as { alreadyApplied: ReadonlyArray<unknown> }).alreadyApplied).toHaveLength(5);
  });

  test('the same version of both instances in one call is two events, not a duplicate', async () => {
    const { orders, points, model, wallets } = await setUp('WalletSameVersion');
    const ordered = await orders.append({ customer: 'c-2' }, [{ type: 'Ordered', data: { amount: 5 } }]);
    const earned = await points.append({ customer: 'c-2' }, [{ type: 'Earned', data: { points: 7 } }]);
    const result = await wallets.applyBatch([ordered.events[0], earned.events[0]] as never);
    expect(result.outcomes[0]).toMatchObject({ status: 'applied' });
    expect((result.outcomes[0] as { applied: ReadonlyArray<unknown> }).applied).toHaveLength(2);
    expect(await model.get({ customer: 'c-2' }, { consistent: true })).toMatchObject({ orders: 1, spent: 5, points: 7 });
  });
});
