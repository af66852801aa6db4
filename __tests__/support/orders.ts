import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, type EventOf } from 'dynafold';
import type { CompressionOptions } from 'dynafold/types';

/** The events of the order stream used throughout the tests (the README's example). */
export const orderEventSchemas = {
  OrderPlaced: z.object({ customer: z.string() }),
  ItemAdded: z.object({ sku: z.string(), price: z.number() }),
  OrderShipped: z.object({}),
};

/** An `Order` stream on `table`. */
export function orderStream(
  client: DynamoDBClient,
  table: string,
  options: { name?: string; compression?: CompressionOptions; itemPerEvent?: boolean; rememberedVersions?: number } = {},
) {
  return new EventStream({
    client,
    table,
    name: options.name ?? 'Order',
    streamId: ['orderId'],
    events: orderEventSchemas,
    ...(options.compression === undefined ? {} : { compression: options.compression }),
    ...(options.itemPerEvent === undefined ? {} : { itemPerEvent: options.itemPerEvent }),
    ...(options.rememberedVersions === undefined ? {} : { rememberedVersions: options.rememberedVersions }),
  });
}

export type OrderEvent = EventOf<typeof orderEventSchemas>;

/** The state the order tests fold into. */
export interface OrderState {
  readonly placed: boolean;
  readonly shipped: boolean;
  readonly items: number;
  readonly total: number;
}

export const emptyOrder: OrderState = { placed: false, shipped: false, items: 0, total: 0 };

export function evolveOrder(state: OrderState, event: OrderEvent): OrderState {
  switch (event.type) {
    case 'OrderPlaced':
      return { ...state, placed: true };
    case 'ItemAdded':
      return { ...state, items: state.items + 1, total: state.total + event.data.price };
    case 'OrderShipped':
      return { ...state, shipped: true };
  }
}

/** Versions 1..n, for comparing with what a stream holds. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
}

/** A decider that places the order first, then adds an item each time: commands that always append one event. */
export function placeThenAddItem(orderId: string) {
  return {
    initial: emptyOrder,
    evolve: evolveOrder,
    decide: (state: OrderState) =>
      state.placed
        ? [{ type: 'ItemAdded' as const, data: { sku: 'pen', price: 1 } }]
        : [{ type: 'OrderPlaced' as const, data: { customer: orderId } }],
  };
}
