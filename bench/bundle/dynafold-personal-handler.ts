/**
 * The bundle scenario's handler with personal data: the same order summary projection, over a stream that
 * seals each order's customer with its subject's key (`dynafold/erasure`). Its keys are wrapped by the
 * local provider, so that the difference to the handler without is dynafold's code alone (a KMS provider
 * adds the KMS client, the app's choice).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventStream, Projection, ReadModel, lambdaHandler } from 'dynafold';
import { LocalKeyProvider, SubjectKeys } from 'dynafold/erasure';
import { z } from 'zod';

const client = new DynamoDBClient({});
const keys = new SubjectKeys({
  client,
  table: process.env['KEYS_TABLE'] ?? 'subject-keys',
  provider: new LocalKeyProvider({ key: Buffer.from(process.env['KEY'] ?? '', 'base64') }),
});
const orders = new EventStream({
  client,
  table: process.env['EVENTS_TABLE'] ?? 'events',
  name: 'Order',
  streamId: ['orderId'],
  events: { OrderPlaced: z.object({ customerId: z.string(), customer: z.string() }), ItemAdded: z.object({ sku: z.string(), price: z.number() }) },
  personalData: { keys, events: { OrderPlaced: { subject: { data: 'customerId' }, fields: { customer: '[erased]' } } } },
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

export const handler = lambdaHandler({ projections: { summaries: projection } });
