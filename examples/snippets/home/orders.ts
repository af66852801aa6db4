// The home page's example: an order stream, its totals projected into
// read-model rows, an append and a projected row.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ReadModel } from 'dynafold';

const client = new DynamoDBClient({});

const OrderTotals = new ReadModel({
  client,
  table: 'views',
  name: 'OrderTotal',
  schema: z.object({
    orderId: z.string(),
    total: z.number(),
    version: z.number(),
  }),
  key: {
    pk: { field: 'pk', composite: ['orderId'] },
    sk: { field: 'sk', composite: [] },
  },
});

// #region append-and-project
import { EventStream, Projection } from 'dynafold';
import { z } from 'zod';

const orders = new EventStream({
  client,
  table: 'events',
  name: 'Order',
  streamId: ['orderId'],
  events: {
    OrderPlaced: z.object({ customer: z.string() }),
    ItemAdded: z.object({ sku: z.string(), price: z.number() }),
  },
});

// Each order's row of OrderTotals (a ReadModel), in version order and
// each event once, however the stream delivers them.
export const totals = new Projection({
  name: 'order-totals',
  stream: orders,
  readModel: OrderTotals,
  checkpoint: 'version',
  key: (id) => id,
  initial: (id) => ({ ...id, total: 0, version: 0 }),
  evolve: (row, { type, data }) =>
    type === 'ItemAdded'
      ? { ...row, total: row.total + data.price }
      : row,
});

export async function placeOrder(): Promise<void> {
  await orders.append({ orderId: 'o-1' }, [
    { type: 'OrderPlaced', data: { customer: 'ada' } },
    { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
  ]);
  await totals.catchUp({ orderId: 'o-1' }); // what a delivery does
  console.log(await OrderTotals.get({ orderId: 'o-1' })); // total: 12
}
// #endregion append-and-project
