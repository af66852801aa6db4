// The domain: an order's events, its summary row, and the projection
// that folds the one into the other.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventStream, Projection, ReadModel } from 'dynafold';
import { lambdaHandler } from 'dynafold/lambda';
import { z } from 'zod';

export const orderEvents = {
  OrderPlaced: z.object({ customer: z.string() }),
  ItemAdded: z.object({ sku: z.string(), price: z.number() }),
};

export const orderStream = (client: DynamoDBClient, table: string) =>
  new EventStream({
    client,
    table,
    name: 'Order',
    streamId: ['orderId'],
    events: orderEvents,
  });

export const orderSummaries = (client: DynamoDBClient, table: string) =>
  new ReadModel({
    client,
    table,
    name: 'OrderSummary',
    schema: z.object({
      orderId: z.string(),
      customer: z.string(),
      items: z.number(),
      total: z.number(),
      version: z.number(),
    }),
    key: {
      pk: { field: 'pk', composite: ['orderId'] },
      sk: { field: 'sk', composite: [] },
    },
  });

export const orderSummaryProjection = (
  stream: ReturnType<typeof orderStream>,
  readModel: ReturnType<typeof orderSummaries>,
) =>
  new Projection({
    // Its one name: the handler's, the CLI's, the spans' and the
    // metrics'.
    name: 'order-summaries',
    stream,
    readModel,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => ({
      orderId: streamId.orderId,
      customer: '',
      items: 0,
      total: 0,
      version: 0,
    }),
    evolve: (row, event) =>
      event.type === 'OrderPlaced'
        ? { ...row, customer: event.data.customer }
        : {
            ...row,
            items: row.items + 1,
            total: row.total + event.data.price,
          },
    checkpoint: 'version',
  });

/** The Lambda function's handler, on the tables it is given. */
export const ordersHandler = (
  client: DynamoDBClient,
  tables: { readonly events: string; readonly views: string },
) =>
  lambdaHandler({
    projections: [
      orderSummaryProjection(
        orderStream(client, tables.events),
        orderSummaries(client, tables.views),
      ),
    ],
  });
