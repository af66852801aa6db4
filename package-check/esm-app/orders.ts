/**
 * The app's order summaries, as a strict ESM app writes them: the events, the read model and the
 * projection, each made on the client and table it is given (the handler's, or a spec's fresh ones).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventStream, Projection, ReadModel } from 'dynafold';
import { z } from 'zod';

export const orderEvents = {
  OrderPlaced: z.object({ customer: z.string() }),
  ItemAdded: z.object({ sku: z.string(), price: z.number() }),
};

export const orderStream = (client: DynamoDBClient, table: string) =>
  new EventStream({ client, table, name: 'Order', streamId: ['orderId'], events: orderEvents });

export const orderSummaries = (client: DynamoDBClient, table: string) =>
  new ReadModel({
    client,
    table,
    name: 'OrderSummary',
    schema: z.object({ orderId: z.string(), customer: z.string(), items: z.number(), total: z.number(), version: z.number() }),
    key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
  });

export const orderProjection = (stream: ReturnType<typeof orderStream>, readModel: ReturnType<typeof orderSummaries>) =>
  new Projection({
    stream,
    readModel,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => ({ orderId: streamId.orderId, customer: '', items: 0, total: 0, version: 0 }),
    evolve: (row, event) =>
      event.type === 'OrderPlaced'
        ? { ...row, customer: event.data.customer }
        : { ...row, items: row.items + 1, total: row.total + event.data.price },
    checkpoint: 'version',
  });
