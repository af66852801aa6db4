/** The Lambda handler bundled for the bundle scenario: an order summary projection through dynafold. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventStream, Projection, ReadModel, lambdaHandler } from 'dynafold';
import { z } from 'zod';

const client = new DynamoDBClient({});
const orders = new EventStream({
  client,
  table: process.env['EVENTS_TABLE'] ?? 'events',
  name: 'Order',
  streamId: ['orderId'],
  events: { OrderPlaced: z.object({ customer: z.string() }), ItemAdded: z.object({ sku: z.string(), price: z.number() }) },
});
const summaries = new ReadModel({
  client,
  table: process.env['VIEWS_TABLE'] ?? 'views',
  name: 'OrderSummary',
  schema: z.object({ orderId: z.string(), customer: z.string(), items: z.number(), total: z.number(), version: z.number() }),
  key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
});
const projection = new Projection({
  stream: orders,
  readModel: summaries,
  key: (streamId) => ({ orderId: streamId.orderId }),
  initial: (streamId) => ({ orderId: streamId.orderId, customer: '', items: 0, total: 0, version: 0 }),
  evolve: (row, event) =>
    event.type === 'OrderPlaced' ? { ...row, customer: event.data.customer } : { ...row, items: row.items + 1, total: row.total + event.data.price },
  checkpoint: 'version',
});

export const handler = lambdaHandler({ projections: [projection] });
