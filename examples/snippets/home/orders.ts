// The home page's example: an order stream, its summary rows, the
// projection between them, an append and a projected row.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { OrderSummaries } from '../store/model';

const client = new DynamoDBClient({});

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

// An order's summary row (OrderSummaries, a ReadModel), folded in
// version order and exactly once, however the stream delivers.
export const summaries = new Projection({
  stream: orders,
  readModel: OrderSummaries,
  checkpoint: 'version',
  key: (id) => ({ orderId: id.orderId }),
  initial: (id) => ({
    orderId: id.orderId,
    customer: '',
    status: 'placed',
    total: 0,
    version: 0,
  }),
  evolve: (row, event) =>
    event.type === 'OrderPlaced'
      ? { ...row, customer: event.data.customer }
      : { ...row, total: row.total + event.data.price },
});

export async function placeOrder(): Promise<void> {
  await orders.append(
    { orderId: 'o-1' },
    [
      { type: 'OrderPlaced', data: { customer: 'ada' } },
      { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
    ],
    { expectedVersion: 0 }, // the order must be new
  );
  await summaries.catchUp({ orderId: 'o-1' }); // as a delivery would
  console.log(await OrderSummaries.get({ orderId: 'o-1' }));
}
// #endregion append-and-project
