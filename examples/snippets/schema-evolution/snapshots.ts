/**
 * Snapshots of a fold whose state changed shape. Included by
 * docs/guides/schema-evolution.md.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream } from 'dynafold';

const Orders = new EventStream({
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
});

interface OrderState {
  readonly skus: ReadonlyArray<string>;
  readonly totalCents: number;
}

const fold = {
  initial: (): OrderState => ({ skus: [], totalCents: 0 }),
  evolve: (
    state: OrderState,
    event: (typeof Orders.$types)['event'],
  ): OrderState => ({
    skus: [...state.skus, event.data.sku],
    totalCents: state.totalCents + event.data.priceCents,
  }),
};

export async function loadOrder(orderId: string) {
  // #region ignore
  // The state's shape changed (it was { items: number }): bump the
  // version, and snapshots of version 1 are ignored; the load folds
  // from the events and saves one of version 2.
  return Orders.load(orderId, fold, {
    snapshot: { every: 100, version: 2 },
  });
  // #endregion ignore
}

export async function loadOrderFromOldSnapshots(orderId: string) {
  // #region upcast
  // Or turn the old state into today's, when it holds what it needs.
  return Orders.load(orderId, fold, {
    snapshot: {
      every: 100,
      version: 2,
      upcast: (state, storedVersion) => {
        if (storedVersion !== 1)
          throw new Error(
            `no upcast from state version ${storedVersion}`,
          );
        const old = state as { skus: string[]; total: number };
        return {
          skus: old.skus,
          totalCents: Math.round(old.total * 100),
        };
      },
    },
  });
  // #endregion upcast
}
