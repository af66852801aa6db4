/**
 * What code that is one version behind makes of newer events. Included
 * by docs/guides/schema-evolution.md.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import {
  EventStream,
  EventVersionTooNewError,
  olderVersion,
} from 'dynafold';

const ItemAddedV1 = z.object({ sku: z.string(), price: z.number() });

// #region from-newer
// Yesterday's code knows ItemAdded up to version 2; today's writes
// version 3 ({ sku, priceCents, quantity }).
export const Orders = new EventStream({
  client: new DynamoDBClient({}),
  table: 'events',
  name: 'Order',
  streamId: ['orderId'],
  events: {
    ItemAdded: z.object({
      sku: z.string(),
      priceCents: z.number().int(),
    }),
  },
  versions: {
    ItemAdded: {
      older: [
        olderVersion(1, ItemAddedV1, (v1) => ({
          sku: v1.sku,
          priceCents: Math.round(v1.price * 100),
        })),
      ],
      // Without this, such an event is an EventVersionTooNewError.
      fromNewer: (data) => {
        const { sku, priceCents, quantity } = data as {
          sku: string;
          priceCents: number;
          quantity: number;
        };
        return { sku, priceCents: priceCents * quantity };
      },
    },
  },
});
// #endregion from-newer

// #region too-new
export async function readOrder(orderId: string) {
  try {
    return await Orders.read({ orderId });
  } catch (error) {
    // Transient: it reads once the new definition is deployed here too.
    if (error instanceof EventVersionTooNewError) {
      const { type, storedVersion, knownVersion } = error;
      console.warn(
        `${type}: stored v${storedVersion}, known v${knownVersion}`,
      );
    }
    throw error;
  }
}
// #endregion too-new
