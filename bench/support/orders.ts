import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ReadModel, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { evolveSummary as evolveTestSummary, orderSummaryKey, orderSummarySchema, type OrderSummary } from '../../__tests__/support/order-projection';
import { orderStream, type OrderEvent } from '../../__tests__/support/orders';
import { createTable } from './local';

/** The order domain of the tests (the README's example), shared by every scenario and baseline. */
export { orderStream } from '../../__tests__/support/orders';
export type { OrderSummary as Summary } from '../../__tests__/support/order-projection';
export { initialSummary } from '../../__tests__/support/order-projection';

/** What the baselines fold: any event with a type, data and version. */
export interface OrderEventLike {
  readonly type: string;
  readonly data: unknown;
  readonly version: number;
}

/**
 * The fold every implementation shares, so they differ only in how they get events and rows. The
 * baselines keep the version in the state themselves (the projection's checkpoint does it for dynafold).
 */
export function evolveSummary(state: OrderSummary, event: OrderEventLike): OrderSummary {
  const known = event.type === 'OrderPlaced' || event.type === 'ItemAdded' || event.type === 'OrderShipped';
  return { ...(known ? evolveTestSummary(state, event as OrderEvent) : state), version: event.version };
}

export type OrderStream = ReturnType<typeof orderStream>;

/** The tests' order summaries without their status index: the bench measures row writes alone. */
export function summaries(client: DynamoDBClient, table: string, name: string) {
  return new ReadModel({ client, table, name, schema: orderSummarySchema, key: orderSummaryKey });
}
export type Summaries = ReturnType<typeof summaries>;

/** The tests' order summary projection. */
export { orderSummaryProjection as summaryProjection } from '../../__tests__/support/order-projection';

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
export async function fillOrder(
  stream: OrderStream,
  orderId: string,
  length: number,
  shape: { readonly perAppend?: number; readonly singlesAfter?: number } = {},
): Promise<void> {
  const perAppend = shape.perAppend ?? 50;
  const singlesAfter = shape.singlesAfter ?? length;
  for (let version = 0; version < length;) {
    // History in appends of `perAppend` (one commit each); the events past `singlesAfter` one an append, as
    // live commands write them, so each has a stream record of its own.
    const count = version >= singlesAfter ? 1 : Math.min(perAppend, length - version, singlesAfter - version);
    await stream.append({ orderId }, newEvents(version + 1, count), { expectedVersion: version });
    version += count;
  }
}
