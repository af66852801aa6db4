// The store guide's running example: the Order stream, its summaries.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export const client = new DynamoDBClient({});

// #region stream
import { z } from 'zod';
import { EventStream } from 'dynafold';

export const OrderEvents = new EventStream({
  client,
  table: 'events',
  name: 'Order', // the stream's name, also its marker
  // Composite fields; the string form joins them with '#'
  streamId: ['orderId'],
  events: {
    OrderPlaced: z.object({ customer: z.string() }),
    ItemAdded: z.object({ sku: z.string(), price: z.number() }),
    OrderShipped: z.object({}),
  },
});
// #endregion stream

// #region read-model
import { ReadModel } from 'dynafold';

export const OrderSummaries = new ReadModel({
  client,
  table: 'views',
  // Prefixes its key values, so several models can share a table
  name: 'OrderSummary',
  schema: z.object({
    orderId: z.string(),
    customer: z.string(),
    status: z.string(),
    total: z.number(),
    version: z.number(),
  }),
  key: {
    pk: { field: 'pk', composite: ['orderId'] },
    sk: { field: 'sk', composite: [] },
  },
  indexes: {
    byStatus: {
      name: 'gsi1',
      pk: { field: 'gsi1pk', composite: ['status'] },
      sk: { field: 'gsi1sk', composite: ['orderId'] },
    },
  },
});
// #endregion read-model

/** A second stream in the table, for the examples that route several. */
export const PaymentEvents = new EventStream({
  client,
  table: 'events',
  name: 'Payment',
  streamId: ['paymentId'],
  events: { PaymentTaken: z.object({ amount: z.number() }) },
});
