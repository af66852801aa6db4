// A command over an order: add an item, which only an order that was
// placed takes.
import type { Decider, EventOf, NewEventOf } from 'dynafold';
import { type orderEvents } from './orders.js';

type OrderEvent = EventOf<typeof orderEvents>;
type Order = { readonly placed: boolean; readonly items: number };

export class OrderNotPlacedError extends Error {}

export const addItem = (item: {
  sku: string;
  price: number;
}): Decider<Order, OrderEvent, NewEventOf<typeof orderEvents>> => ({
  initial: { placed: false, items: 0 },
  evolve: (order, event) =>
    event.type === 'OrderPlaced'
      ? { ...order, placed: true }
      : { ...order, items: order.items + 1 },
  decide: (order) => {
    if (!order.placed)
      throw new OrderNotPlacedError('place the order first');
    return [{ type: 'ItemAdded', data: item }];
  },
});
