/**
 * The Order stream after three changes: ItemAdded stored euros as
 * `price` (version 1), then cents (version 2), and now a quantity too
 * (version 3); ProductRemoved was renamed ItemRemoved; coupons are no
 * longer appended. Type-checked with the examples; the guide
 * docs/guides/schema-evolution.md includes its regions.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import {
  EventStream,
  olderVersion,
  retiredEvent,
  type EventOf,
} from 'dynafold';

const client = new DynamoDBClient({});

// #region optional-field
// An optional field needs no version: old events parse without it.
const OrderPlaced = z.object({
  customer: z.string(),
  channel: z.enum(['web', 'shop']).optional(),
});
// #endregion optional-field

// #region definition
const ItemAddedV1 = z.object({ sku: z.string(), price: z.number() });
const ItemAddedV2 = z.object({
  sku: z.string(),
  priceCents: z.number().int(),
});

export const Orders = new EventStream({
  client,
  table: 'events',
  name: 'Order',
  streamId: ['orderId'],
  // Today's schemas: `type` narrows `data` to these.
  events: {
    OrderPlaced,
    ItemAdded: z.object({
      sku: z.string(),
      priceCents: z.number().int(),
      quantity: z.number().int().min(1),
    }),
    ItemRemoved: z.object({ sku: z.string() }),
    // No longer appended; its old events read as { storedType,
    // storedVersion, data }.
    CouponApplied: retiredEvent(),
  },
  versions: {
    // Today's ItemAdded is version 3, one above its highest older one.
    ItemAdded: {
      older: [
        olderVersion(1, ItemAddedV1, (v1) => ({
          sku: v1.sku,
          priceCents: Math.round(v1.price * 100),
        })),
        olderVersion(2, ItemAddedV2, (v2) => ({ ...v2, quantity: 1 })),
      ],
    },
    // Events stored as ProductRemoved read as ItemRemoved.
    ItemRemoved: { aliases: ['ProductRemoved'] },
  },
});
// #endregion definition

// #region fold
type OrderEvent = EventOf<typeof Orders.events>;

export function itemsOf(events: ReadonlyArray<OrderEvent>): number {
  let items = 0;
  for (const event of events) {
    // Only today's shapes arrive here, whatever an event's version.
    if (event.type === 'ItemAdded') items += event.data.quantity;
    if (event.type === 'CouponApplied')
      console.log(
        'a coupon of old:',
        event.data.storedVersion,
        event.data.data,
      );
  }
  return items;
}
// #endregion fold
