import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, type Decider, type EventOf, type NewEventOf } from 'dynafold';
import { Reaction, command } from 'dynafold/reactions';

/**
 * A shop for the reactions' tests: orders (the source) whose items reserve stock (the target). The stock's
 * decider reserves whatever it is told, with no memory of orders, so an effect written twice shows as two
 * reservations: the tests count them.
 */
export const orderEvents = {
  OrderPlaced: z.object({ sku: z.string(), quantity: z.number() }),
  ItemAdded: z.object({ sku: z.string(), quantity: z.number() }),
  OrderCancelled: z.object({}),
  PaymentReceived: z.object({ amount: z.number() }),
};
export const stockEvents = {
  Reserved: z.object({ orderId: z.string(), version: z.number(), quantity: z.number() }),
  Restocked: z.object({ quantity: z.number() }),
};

export type ShopOrderEvent = EventOf<typeof orderEvents>;
export type StockEvent = EventOf<typeof stockEvents>;

export function shopOrders(client: DynamoDBClient, table: string, name = 'ShopOrder') {
  return new EventStream({ client, table, name, streamId: ['orderId'], events: orderEvents });
}

export function stockStream(client: DynamoDBClient, table: string, name = 'Stock') {
  return new EventStream({ client, table, name, streamId: ['sku'], events: stockEvents });
}

export interface StockState {
  readonly reserved: number;
}

/** Reserves `quantity` for the order event at `version`, whatever the stock holds: a doubled effect is a second reservation. */
export function reserve(orderId: string, version: number, quantity: number): Decider<StockState, StockEvent, NewEventOf<typeof stockEvents>> {
  return {
    initial: { reserved: 0 },
    evolve: (state, event) => (event.type === 'Reserved' ? { reserved: state.reserved + event.data.quantity } : state),
    decide: () => [{ type: 'Reserved', data: { orderId, version, quantity } }],
  };
}

/** The reservations a stock instance holds, as `orderId@version`, in order. */
export async function reservations(stock: ReturnType<typeof stockStream>, sku: string): Promise<string[]> {
  const events = await stock.read({ sku });
  return events.flatMap((event) => (event.type === 'Reserved' ? [`${event.data.orderId}@${event.data.version}`] : []));
}

/**
 * A shop whose reaction reserves the stock of every order event with a quantity, under the names given;
 * each `reaction()` is another process of the same reaction (its own memory of the progress it wrote).
 */
export function reservingShop(
  client: DynamoDBClient,
  tables: { readonly events: string; readonly reactions: string },
  names: { readonly orders: string; readonly stock: string; readonly reaction: string },
) {
  const orders = shopOrders(client, tables.events, names.orders);
  const stock = stockStream(client, tables.events, names.stock);
  const reaction = () =>
    new Reaction({
      name: names.reaction,
      streams: [orders],
      client,
      table: tables.reactions,
      react: (event) =>
        event.type === 'OrderPlaced' || event.type === 'ItemAdded'
          ? command(stock, { sku: event.data.sku }, reserve(event.streamId, event.version, event.data.quantity))
          : undefined,
    });
  return { orders, stock, reaction };
}
