import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { Projection, ReadModel, type IndexDefinition, type KeyOfModel } from 'dynafold';
import type { RetryOptions } from 'dynafold/types';
import { evolveOrder, type OrderEvent, emptyOrder } from './orders';
import { type orderStream } from './orders';

export const orderSummarySchema = z.object({
  orderId: z.string(),
  customer: z.string(),
  status: z.string(),
  items: z.number(),
  total: z.number(),
  version: z.number(),
});
export type OrderSummary = z.output<typeof orderSummarySchema>;

/** An order summary row's primary key: one row per order. */
export const orderSummaryKey = { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } };

export function orderSummaries(client: DynamoDBClient, table: string, name = 'OrderSummary') {
  return new ReadModel({
    client,
    table,
    name,
    schema: orderSummarySchema,
    key: orderSummaryKey,
    indexes: { byStatus: { name: 'gsi1', pk: { field: 'gsi1pk', composite: ['status'] }, sk: { field: 'gsi1sk', composite: ['orderId'] } } },
  });
}

export function evolveSummary(state: OrderSummary, event: OrderEvent): OrderSummary {
  switch (event.type) {
    case 'OrderPlaced':
      return { ...state, customer: event.data.customer, status: 'placed' };
    case 'ItemAdded':
      return { ...state, items: state.items + 1, total: state.total + event.data.price };
    case 'OrderShipped':
      return { ...state, status: 'shipped' };
  }
}

export function initialSummary(orderId: string): OrderSummary {
  return { orderId, customer: '', status: 'new', items: 0, total: 0, version: 0 };
}

type OrderStream = ReturnType<typeof orderStream>;

/** The order summary projection of the README. */
export function orderSummaryProjection<M extends ReadModel<typeof orderSummarySchema, Record<string, IndexDefinition>>>(
  stream: OrderStream,
  readModel: M,
  options: { attempts?: number; concurrency?: number; retry?: RetryOptions } = {},
) {
  return new Projection({
    stream,
    readModel,
    // Generic over the model, so its key type is not known here: every model this takes is keyed by orderId.
    key: (streamId) => ({ orderId: streamId.orderId }) as KeyOfModel<M>,
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => evolveSummary(state, event),
    checkpoint: 'version',
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.attempts === undefined && options.retry === undefined
      ? {}
      : { retry: { ...options.retry, ...(options.attempts === undefined ? {} : { attempts: options.attempts }) } }),
  });
}

/** The summary a full fold of the stream gives, to compare a projected row with. */
export function foldSummary(orderId: string, events: ReadonlyArray<OrderEvent>): OrderSummary {
  const folded = events.reduce(evolveSummary, initialSummary(orderId));
  return { ...folded, version: events[events.length - 1]?.version ?? 0 };
}

export { emptyOrder, evolveOrder };
