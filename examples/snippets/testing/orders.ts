// The testing guide's app module (`src/orders.ts`): the order stream,
// its summary rows and projection, and a command.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  EventStream,
  Projection,
  ReadModel,
  type Decider,
  type EventOf,
  type NewEventOf,
} from 'dynafold';
import { z } from 'zod';

const events = {
  OrderPlaced: z.object({ customer: z.string() }),
  ItemAdded: z.object({ sku: z.string(), price: z.number() }),
  OrderShipped: z.object({}),
};
type OrderEvent = EventOf<typeof events>;

export const orderEvents = (client: DynamoDBClient, table: string) =>
  new EventStream({
    client,
    table,
    name: 'Order',
    streamId: ['orderId'],
    events,
  });

const summary = z.object({
  orderId: z.string(),
  customer: z.string(),
  status: z.enum(['new', 'placed', 'shipped']),
  items: z.number(),
  total: z.number(),
  version: z.number(),
});
type OrderSummary = z.infer<typeof summary>;

export const orderSummaries = (client: DynamoDBClient, table: string) =>
  new ReadModel({
    client,
    table,
    name: 'OrderSummary',
    schema: summary,
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

const fold = (row: OrderSummary, event: OrderEvent): OrderSummary => {
  switch (event.type) {
    case 'OrderPlaced':
      return {
        ...row,
        customer: event.data.customer,
        status: 'placed',
      };
    case 'ItemAdded':
      return {
        ...row,
        items: row.items + 1,
        total: row.total + event.data.price,
      };
    case 'OrderShipped':
      return { ...row, status: 'shipped' };
  }
};

export const orderSummaryProjection = (
  stream: ReturnType<typeof orderEvents>,
  readModel: ReturnType<typeof orderSummaries>,
) =>
  new Projection({
    stream,
    readModel,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId): OrderSummary => ({
      orderId: streamId.orderId,
      customer: '',
      status: 'new',
      items: 0,
      total: 0,
      version: 0,
    }),
    evolve: fold,
    checkpoint: 'version',
  });

export class OrderShippedError extends Error {}

type Order = { shipped: boolean; items: number };

/** A command: add an item to an order that is not shipped. */
export const addItem = (item: {
  sku: string;
  price: number;
}): Decider<Order, OrderEvent, NewEventOf<typeof events>> => ({
  initial: { shipped: false, items: 0 },
  evolve: (order, event) =>
    event.type === 'OrderShipped'
      ? { ...order, shipped: true }
      : event.type === 'ItemAdded'
        ? { ...order, items: order.items + 1 }
        : order,
  decide: (order) => {
    if (order.shipped)
      throw new OrderShippedError('the order is shipped');
    return [{ type: 'ItemAdded', data: item }];
  },
});
