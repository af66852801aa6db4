/**
 * An event split into two. Included by docs/guides/schema-evolution.md.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, type EventOf } from 'dynafold';

// #region split
// OrderPlaced used to carry the first item; now an order is placed
// empty and ItemAdded follows. An upcast turns one stored event into
// one event, so the old shape stays a type of its own that code no
// longer appends, and the fold treats it as the two events it is.
export const Orders = new EventStream({
  client: new DynamoDBClient({}),
  table: 'events',
  name: 'Order',
  streamId: ['orderId'],
  events: {
    OrderPlacedWithItem: z.object({
      customer: z.string(),
      sku: z.string(),
      priceCents: z.number().int(),
    }),
    OrderPlaced: z.object({ customer: z.string() }),
    ItemAdded: z.object({
      sku: z.string(),
      priceCents: z.number().int(),
    }),
  },
});

interface Order {
  readonly customer: string;
  readonly totalCents: number;
}

export function evolve(
  order: Order,
  event: EventOf<typeof Orders.events>,
): Order {
  switch (event.type) {
    case 'OrderPlacedWithItem':
      return evolve(
        evolve(order, {
          ...event,
          type: 'OrderPlaced',
          data: { customer: event.data.customer },
        }),
        {
          ...event,
          type: 'ItemAdded',
          data: {
            sku: event.data.sku,
            priceCents: event.data.priceCents,
          },
        },
      );
    case 'OrderPlaced':
      return { ...order, customer: event.data.customer };
    case 'ItemAdded':
      return {
        ...order,
        totalCents: order.totalCents + event.data.priceCents,
      };
  }
}
// #endregion split
