import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, Projection, ReadModel, eventsTableDefinition, readModelTableDefinition } from '../../lib';
import { createTable } from './local';

/** The order stream every scenario writes: the README's example. */
export const orderEvents = {
  OrderPlaced: z.object({ customer: z.string() }),
  ItemAdded: z.object({ sku: z.string(), price: z.number() }),
  OrderShipped: z.object({}),
};

export type OrderEventType = keyof typeof orderEvents;
export interface OrderEventLike {
  readonly type: string;
  readonly data: unknown;
  readonly version: number;
}

export const summarySchema = z.object({
  orderId: z.string(),
  customer: z.string(),
  status: z.string(),
  items: z.number(),
  total: z.number(),
  version: z.number(),
});
export type Summary = z.output<typeof summarySchema>;

export function initialSummary(orderId: string): Summary {
  return { orderId, customer: '', status: 'new', items: 0, total: 0, version: 0 };
}

/** The fold every implementation shares, so they differ only in how they get events and rows. */
export function evolveSummary(state: Summary, event: OrderEventLike): Summary {
  switch (event.type) {
    case 'OrderPlaced':
      return { ...state, customer: (event.data as { customer: string }).customer, status: 'placed', version: event.version };
    case 'ItemAdded':
      return { ...state, items: state.items + 1, total: state.total + (event.data as { price: number }).price, version: event.version };
    case 'OrderShipped':
      return { ...state, status: 'shipped', version: event.version };
    default:
      return { ...state, version: event.version };
  }
}

export function orderStream(client: DynamoDBClient, table: string) {
  return new EventStream({ client, table, name: 'Order', streamId: ['orderId'], events: orderEvents });
}
export type OrderStream = ReturnType<typeof orderStream>;

export function summaries(client: DynamoDBClient, table: string, name: string) {
  return new ReadModel({
    client,
    table,
    name,
    schema: summarySchema,
    key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
  });
}
export type Summaries = ReturnType<typeof summaries>;

export function summaryProjection(stream: OrderStream, readModel: Summaries) {
  return new Projection({
    stream,
    readModel,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => evolveSummary(state, event),
    checkpoint: 'version',
  });
}

/** An events table (with its stream) and a views table. */
export async function orderTables(client: DynamoDBClient, prefix: string) {
  const events = await createTable(client, eventsTableDefinition, `${prefix}-events`);
  const views = await createTable(client, (name) => readModelTableDefinition(name, [summaries(client, name, 'Probe')]), `${prefix}-views`);
  return { events, views: views.name, stream: orderStream(client, events.name) };
}

/** `count` new events for an order at `from` (1-based version of the first). */
export function newEvents(from: number, count: number) {
  return Array.from({ length: count }, (_, i) =>
    from + i === 1
      ? { type: 'OrderPlaced' as const, data: { customer: 'ada' } }
      : { type: 'ItemAdded' as const, data: { sku: `sku-${(from + i) % 7}`, price: ((from + i) % 13) + 1 } },
  );
}

/** Appends `length` events to an order, `perAppend` at a time. */
export async function fillOrder(stream: OrderStream, orderId: string, length: number, perAppend = 50): Promise<void> {
  for (let version = 0; version < length; version += perAppend) {
    const count = Math.min(perAppend, length - version);
    await stream.append({ orderId }, newEvents(version + 1, count), { expectedVersion: version });
  }
}
