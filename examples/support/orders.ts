/**
 * The examples' domain: orders. The `Order` event stream, the `OrderSummary` read model (one row per
 * order, queryable by status), the projection that keeps it, and the commands that decide an order's events.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import {
  EventStream,
  Projection,
  ReadModel,
  type Decider,
  type EventOf,
  type NewEventOf,
} from 'dynafold';

export const orderEvents = {
  OrderPlaced: z.object({ customer: z.string() }),
  ItemAdded: z.object({ sku: z.string(), price: z.number() }),
  OrderShipped: z.object({}),
};
export type OrderEvent = EventOf<typeof orderEvents>;
type NewOrderEvent = NewEventOf<typeof orderEvents>;

export function orderStream(client: DynamoDBClient, table: string) {
  return new EventStream({
    client,
    table,
    name: 'Order',
    streamId: ['orderId'],
    events: orderEvents,
  });
}
export type OrderStream = ReturnType<typeof orderStream>;

export const orderSummarySchema = z.object({
  orderId: z.string(),
  customer: z.string(),
  status: z.enum(['new', 'placed', 'shipped']),
  items: z.number().int(),
  total: z.number(),
  version: z.number().int(), // the last stream version folded into the row
});
export type OrderSummary = z.infer<typeof orderSummarySchema>;

/** OrderSummary rows; `name` keeps several models apart in one table (it prefixes their keys). */
export function orderSummaries(
  client: DynamoDBClient,
  table: string,
  name = 'OrderSummary',
) {
  return new ReadModel({
    client,
    table,
    name,
    schema: orderSummarySchema,
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
}

export type OrderSummaries = ReturnType<typeof orderSummaries>;

/** The summary of an order that does not exist yet. */
export function emptySummary(orderId: string): OrderSummary {
  return {
    orderId,
    customer: '',
    status: 'new',
    items: 0,
    total: 0,
    version: 0,
  };
}

/** One step of the summary's fold. The projection writes `version` itself (its checkpoint). */
export function summarize(
  summary: OrderSummary,
  event: OrderEvent,
): OrderSummary {
  switch (event.type) {
    case 'OrderPlaced':
      return {
        ...summary,
        customer: event.data.customer,
        status: 'placed',
      };
    case 'ItemAdded':
      return {
        ...summary,
        items: summary.items + 1,
        total:
          Math.round((summary.total + event.data.price) * 100) / 100,
      };
    case 'OrderShipped':
      return { ...summary, status: 'shipped' };
  }
}

/** What a summary row must hold after these events: the fold of the stream, read straight from the store. */
export function foldSummary(
  orderId: string,
  events: ReadonlyArray<OrderEvent>,
): OrderSummary {
  const folded = events.reduce(summarize, emptySummary(orderId));
  return {
    ...folded,
    version: events[events.length - 1]?.version ?? 0,
  };
}

/** Keeps one OrderSummary row per order, whatever order and however often the stream records arrive. */
export function orderSummaryProjection(
  Orders: OrderStream,
  readModel: OrderSummaries,
) {
  return new Projection({
    name: 'order-summaries',
    stream: Orders,
    readModel,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => emptySummary(streamId.orderId),
    evolve: summarize,
    checkpoint: 'version',
  });
}
export type OrderSummaryProjection = ReturnType<
  typeof orderSummaryProjection
>;

/** The write side's view of an order: what the commands need to decide. */
export interface Order {
  readonly status: 'new' | 'placed' | 'shipped';
  readonly items: number;
  readonly total: number;
}

export const newOrder: Order = { status: 'new', items: 0, total: 0 };

export function evolveOrder(order: Order, event: OrderEvent): Order {
  switch (event.type) {
    case 'OrderPlaced':
      return { ...order, status: 'placed' };
    case 'ItemAdded':
      return {
        ...order,
        items: order.items + 1,
        total: order.total + event.data.price,
      };
    case 'OrderShipped':
      return { ...order, status: 'shipped' };
  }
}

/** A command refused by the order's rules. */
export class OrderRuleError extends Error {
  override readonly name = 'OrderRuleError';
  /** The status a service answers (dynafold's Problem Details handlers keep a 4xx `statusCode`). */
  readonly statusCode = 422;
}

/** A command: the order's fold plus the decision. */
export type OrderCommand = Decider<Order, OrderEvent, NewOrderEvent>;

const command = (
  decide: (order: Order) => NewOrderEvent[],
): OrderCommand => ({ initial: newOrder, evolve: evolveOrder, decide });

export const placeOrder = (customer: string): OrderCommand =>
  command((order) =>
    order.status === 'new'
      ? [{ type: 'OrderPlaced', data: { customer } }]
      : [],
  );

export const addItem = (sku: string, price: number): OrderCommand =>
  command((order) => {
    if (order.status !== 'placed')
      throw new OrderRuleError(
        `can't add ${sku}: the order is ${order.status}`,
      );
    return [{ type: 'ItemAdded', data: { sku, price } }];
  });

export const shipOrder = (): OrderCommand =>
  command((order) => {
    if (order.status === 'shipped') return [];
    if (order.status !== 'placed' || order.items === 0)
      throw new OrderRuleError(
        `can't ship an order that is ${order.status} with ${order.items} items`,
      );
    return [{ type: 'OrderShipped', data: {} }];
  });
