import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, Projection, ReadModel, olderVersion, retiredEvent, type EventOf } from 'dynafold';

/**
 * One stream, Cart, as three generations of code defined it. Last year's stored prices in euros and
 * called a removal ProductRemoved; last month's stored cents (ItemAdded version 2); today's adds a
 * quantity (version 3), calls the removal ItemRemoved, has retired CouponApplied and gave CartOpened an
 * optional field (which needs no version).
 */
const itemAddedV1 = z.object({ sku: z.string(), price: z.number() });
const itemAddedV2 = z.object({ sku: z.string(), priceCents: z.number().int() });
const itemAddedV3 = z.object({ sku: z.string(), priceCents: z.number().int(), quantity: z.number().int().min(1) });

export const cartEventsV1 = {
  CartOpened: z.object({ owner: z.string() }),
  ItemAdded: itemAddedV1,
  ProductRemoved: z.object({ sku: z.string() }),
  CouponApplied: z.object({ code: z.string() }),
};

export const cartEventsV2 = { ...cartEventsV1, ItemAdded: itemAddedV2 };

export const cartEventsToday = {
  CartOpened: z.object({ owner: z.string(), channel: z.string().optional() }),
  ItemAdded: itemAddedV3,
  ItemRemoved: z.object({ sku: z.string() }),
  CouponApplied: retiredEvent(),
};

/** Euros to cents, as the upcast from version 1 does it. */
export const toCents = (euros: number): number => Math.round(euros * 100);

export const itemAddedHistory = {
  older: [
    olderVersion(1, itemAddedV1, (v1) => ({ sku: v1.sku, priceCents: toCents(v1.price) })),
    olderVersion(2, itemAddedV2, (v2) => ({ ...v2, quantity: 1 })),
  ],
};

type Generation = 'v1' | 'v2' | 'today';

export function cartStreamV1(client: DynamoDBClient, table: string, name = 'Cart') {
  return new EventStream({ client, table, name, streamId: ['cartId'], events: cartEventsV1 });
}

export function cartStreamV2(client: DynamoDBClient, table: string, name = 'Cart') {
  return new EventStream({
    client,
    table,
    name,
    streamId: ['cartId'],
    events: cartEventsV2,
    versions: { ItemAdded: { older: [itemAddedHistory.older[0] as (typeof itemAddedHistory.older)[number]] } },
  });
}

export function cartStreamToday(client: DynamoDBClient, table: string, options: { name?: string; skipRetired?: boolean } = {}) {
  return new EventStream({
    client,
    table,
    name: options.name ?? 'Cart',
    streamId: ['cartId'],
    events: { ...cartEventsToday, CouponApplied: retiredEvent({ skip: options.skipRetired === true }) },
    versions: { ItemAdded: itemAddedHistory, ItemRemoved: { aliases: ['ProductRemoved'] } },
  });
}

export type CartEvent = EventOf<typeof cartEventsToday>;

/** Today's state of a cart. */
export interface Cart {
  readonly owner: string;
  /** Quantity and unit price per sku. */
  readonly lines: Readonly<Record<string, { readonly quantity: number; readonly priceCents: number }>>;
  /** Coupons applied before they were retired, counted from their retired events. */
  readonly coupons: number;
}

export const emptyCart: Cart = { owner: '', lines: {}, coupons: 0 };

export function evolveCart(state: Cart, event: CartEvent): Cart {
  switch (event.type) {
    case 'CartOpened':
      return { ...state, owner: event.data.owner };
    case 'ItemAdded': {
      const line = state.lines[event.data.sku];
      const quantity = (line?.quantity ?? 0) + event.data.quantity;
      return { ...state, lines: { ...state.lines, [event.data.sku]: { quantity, priceCents: event.data.priceCents } } };
    }
    case 'ItemRemoved': {
      const { [event.data.sku]: _removed, ...lines } = state.lines;
      return { ...state, lines };
    }
    case 'CouponApplied':
      return { ...state, coupons: state.coupons + 1 };
  }
}

/** A new event as one generation's code appends it. */
export type WrittenCartEvent =
  | { readonly type: 'CartOpened'; readonly data: { readonly owner: string } }
  | { readonly type: 'ItemAdded'; readonly data: { readonly sku: string; readonly euros: number; readonly quantity: number } }
  | { readonly type: 'Removed'; readonly data: { readonly sku: string } }
  | { readonly type: 'CouponApplied'; readonly data: { readonly code: string } };

/** What `generation`'s code appends for a written event (coupons only before today), in its own shape. */
export function asAppended(generation: Generation, event: WrittenCartEvent): { type: string; data: Record<string, unknown> } {
  switch (event.type) {
    case 'CartOpened':
      return event;
    case 'ItemAdded':
      if (generation === 'v1') return { type: 'ItemAdded', data: { sku: event.data.sku, price: event.data.euros } };
      if (generation === 'v2') return { type: 'ItemAdded', data: { sku: event.data.sku, priceCents: toCents(event.data.euros) } };
      return { type: 'ItemAdded', data: { sku: event.data.sku, priceCents: toCents(event.data.euros), quantity: event.data.quantity } };
    case 'Removed':
      return { type: generation === 'today' ? 'ItemRemoved' : 'ProductRemoved', data: event.data };
    case 'CouponApplied':
      return event;
  }
}

/**
 * The reference of what today's reader must make of an event a generation wrote, worked out here from
 * the written event (not by the store's upcasters): the oracle of the tests.
 */
export function expectedToday(generation: Generation, event: WrittenCartEvent): { type: CartEvent['type']; data: unknown } {
  switch (event.type) {
    case 'CartOpened':
      return event;
    case 'ItemAdded':
      // Before today no quantity was stored: one of each.
      return {
        type: 'ItemAdded',
        data: { sku: event.data.sku, priceCents: toCents(event.data.euros), quantity: generation === 'today' ? event.data.quantity : 1 },
      };
    case 'Removed':
      return { type: 'ItemRemoved', data: event.data };
    case 'CouponApplied':
      return { type: 'CouponApplied', data: { storedType: 'CouponApplied', storedVersion: 1, data: event.data } };
  }
}

export const cartRowSchema = z.object({
  cartId: z.string(),
  owner: z.string(),
  lines: z.record(z.string(), z.object({ quantity: z.number(), priceCents: z.number() })),
  totalCents: z.number(),
  coupons: z.number(),
  version: z.number(),
});

/** A cart row: one per cart. */
export function cartRowModel(client: DynamoDBClient, table: string, name: string) {
  return new ReadModel({
    client,
    table,
    name,
    schema: cartRowSchema,
    key: { pk: { field: 'pk', composite: ['cartId'] }, sk: { field: 'sk', composite: [] } },
  });
}

export const totalOf = (cart: Cart): number => Object.values(cart.lines).reduce((sum, line) => sum + line.quantity * line.priceCents, 0);

/** The row a cart's fold gives. */
export function cartRowOf(cartId: string, cart: Cart, version: number) {
  return { cartId, owner: cart.owner, lines: cart.lines, totalCents: totalOf(cart), coupons: cart.coupons, version };
}

/** Today's projection of carts into rows; it parks rows after `afterAttempts` failures when given. */
export function cartProjection(
  stream: ReturnType<typeof cartStreamToday>,
  readModel: ReturnType<typeof cartRowModel>,
  name: string,
  options: { afterAttempts?: number } = {},
) {
  return new Projection({
    stream,
    readModel,
    name,
    key: (streamId) => ({ cartId: streamId.cartId }),
    initial: (streamId) => cartRowOf(streamId.cartId, emptyCart, 0),
    evolve: (state, event) => {
      const next = evolveCart({ owner: state.owner, lines: state.lines, coupons: state.coupons }, event);
      return { ...state, ...next, totalCents: totalOf(next) };
    },
    checkpoint: 'version',
    ...(options.afterAttempts === undefined ? {} : { poison: { park: { afterAttempts: options.afterAttempts } } }),
  });
}

/** Last month's code: its events as it defines them (ItemAdded at version 2, the removal still ProductRemoved). */
export type CartEventV2 = EventOf<typeof cartEventsV2>;

/** Last month's fold of a cart: an item added counts once, as the upcast to today's version 3 says. */
export function evolveCartV2(state: Cart, event: CartEventV2): Cart {
  switch (event.type) {
    case 'CartOpened':
      return { ...state, owner: event.data.owner };
    case 'ItemAdded': {
      const line = state.lines[event.data.sku];
      return { ...state, lines: { ...state.lines, [event.data.sku]: { quantity: (line?.quantity ?? 0) + 1, priceCents: event.data.priceCents } } };
    }
    case 'ProductRemoved': {
      const { [event.data.sku]: _removed, ...lines } = state.lines;
      return { ...state, lines };
    }
    case 'CouponApplied':
      return { ...state, coupons: state.coupons + 1 };
  }
}

/**
 * Last month's projection of carts into the same rows as today's (a rolling deploy runs both): it parks
 * rows after `afterAttempts` failures when given, and `bug` makes its `evolve` throw for the events it picks.
 */
export function cartProjectionV2(
  stream: ReturnType<typeof cartStreamV2>,
  readModel: ReturnType<typeof cartRowModel>,
  name: string,
  options: { afterAttempts?: number; bug?: (event: { readonly version: number; readonly type: string }) => boolean } = {},
) {
  return new Projection({
    stream,
    readModel,
    name,
    key: (streamId) => ({ cartId: streamId.cartId }),
    initial: (streamId) => cartRowOf(streamId.cartId, emptyCart, 0),
    evolve: (state, event) => {
      if (options.bug?.(event) === true) throw new Error(`a bug in last month's evolve of ${event.type}`);
      const next = evolveCartV2({ owner: state.owner, lines: state.lines, coupons: state.coupons }, event);
      return { ...state, ...next, totalCents: totalOf(next) };
    },
    checkpoint: 'version',
    ...(options.afterAttempts === undefined ? {} : { poison: { park: { afterAttempts: options.afterAttempts } } }),
  });
}
