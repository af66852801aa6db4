import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import {
  ConfigurationError,
  DecodeError,
  EventStream,
  EventVersionTooNewError,
  UpcastError,
  ValidationError,
  olderVersion,
  retiredEvent,
} from 'dynafold';
import type { EventTypeVersions } from 'dynafold/types';
import { eventCodec, validateNewEvent } from '../../lib/store/codec/event-codec';
import { fromEventItem, toEventItem } from '../support/commits';

import { Layout, eventSortKey } from '../../lib/store/layout';
import { cartEventsToday, itemAddedHistory } from '../support/carts';

const client = new DynamoDBClient({ region: 'local', endpoint: 'http://127.0.0.1:1' });
afterAll(() => client.destroy());

const v1 = z.object({ sku: z.string(), price: z.number() });
const v2 = z.object({ sku: z.string(), priceCents: z.number().int() });
const today = z.object({ sku: z.string(), priceCents: z.number().int(), quantity: z.number().int().min(1) });
const toV2 = olderVersion(1, v1, (data) => ({ sku: data.sku, priceCents: Math.round(data.price * 100) }));
const toV3 = olderVersion(2, v2, (data) => ({ ...data, quantity: 1 }));

function streamWith(
  versions: Record<string, EventTypeVersions | undefined>,
  events: Record<string, z.ZodType> = { ItemAdded: today, Opened: z.object({}) },
) {
  return () => new EventStream({ client, table: 'events', name: 'Cart', streamId: ['cartId'], events, versions });
}

describe('a definition that cannot be honoured is refused at construction', () => {
  test.each<[string, Record<string, EventTypeVersions | undefined>, RegExp]>([
    ['a gap in the chain', { ItemAdded: { older: [toV2, olderVersion(3, v2, (data) => data)] } }, /version 2 is missing/],
    ['a chain that does not start at 1', { ItemAdded: { older: [toV3] } }, /version 1 is missing/],
    ['a version below 1', { ItemAdded: { older: [olderVersion(0, v1, (data) => data)] } }, /a version is 0; versions are integers from 1/],
    ['a version that is no integer', { ItemAdded: { older: [olderVersion(1.5, v1, (data) => data)] } }, /a version is 1.5/],
    ['a version listed twice', { ItemAdded: { older: [toV2, olderVersion(1, v1, (data) => data)] } }, /version 1 is listed twice/],
    [
      'an upcast that is no function',
      { ItemAdded: { older: [{ version: 1, schema: v1, upcast: 'x' as never }] } },
      /version 1 needs an upcast function to version 2/,
    ],
    [
      'a schema that is no zod schema',
      { ItemAdded: { older: [{ version: 1, schema: {} as z.ZodType, upcast: (d) => d }] } },
      /schema of version 1 is not a zod schema/,
    ],
    ['versions of a type the stream does not have', { ItemAddedd: { older: [toV2] } }, /`versions.ItemAddedd` names no event type/],
    [
      'two types claiming one alias',
      { ItemAdded: { aliases: ['Old'] }, Opened: { aliases: ['Old'] } },
      /ItemAdded and Opened both claim the alias Old/,
    ],
    [
      'an alias that is a type of its own',
      { ItemAdded: { aliases: ['Opened'] } },
      /ItemAdded claims the alias Opened, which is an event type of its own/,
    ],
    ['an empty alias', { ItemAdded: { aliases: [''] } }, /an alias of ItemAdded must be a non-empty string/],
    ['a fromNewer that is no function', { ItemAdded: { fromNewer: 3 as never } }, /`versions.ItemAdded.fromNewer` to be a function/],
  ])('%s', (_, versions, message) => {
    expect(streamWith(versions)).toThrow(ConfigurationError);
    expect(streamWith(versions)).toThrow(message);
  });

  test('a retired type is never upcast', () => {
    const build = streamWith({ Coupon: { older: [toV2] } }, { Coupon: retiredEvent() });
    expect(build).toThrow(/Coupon is retired, so its events are never upcast/);
  });

  test('a contiguous chain, aliases and a retired type are accepted', () => {
    expect(streamWith({ ItemAdded: { older: [toV3, toV2], aliases: ['ProductAdded'] } }, { ItemAdded: today, Coupon: retiredEvent() })).not.toThrow();
  });
});

describe('the codec', () => {
  const codec = eventCodec('Cart', cartEventsToday, false, { ItemAdded: itemAddedHistory, ItemRemoved: { aliases: ['ProductRemoved'] } });
  const item = (type: string, data: unknown, typeVersion?: unknown) => ({
    [Layout.partitionKey]: 'Cart#c',
    [Layout.sortKey]: eventSortKey(4),
    [Layout.eventMarker]: 'Cart',
    type,
    data,
    [Layout.appendedAt]: Date.parse('2026-01-01T00:00:00.000Z'),
    ...(typeVersion === undefined ? {} : { [Layout.typeVersion]: typeVersion }),
  });

  test("an append stores its type's version when it is above 1", () => {
    const added = validateNewEvent(codec, { type: 'ItemAdded', data: { sku: 'a', priceCents: 150, quantity: 2 } }, 0);
    expect(toEventItem(codec, 'c', 1, added, 0)[Layout.typeVersion]).toBe(3);
    const opened = validateNewEvent(codec, { type: 'CartOpened', data: { owner: 'ada' } }, 0);
    expect(toEventItem(codec, 'c', 1, opened, 0)).not.toHaveProperty(Layout.typeVersion);
  });

  test('an event stored without a version is version 1 and reads in today’s shape', () => {
    expect(fromEventItem(codec, item('ItemAdded', { sku: 'a', price: 1.5 })).data).toEqual({ sku: 'a', priceCents: 150, quantity: 1 });
    expect(fromEventItem(codec, item('ItemAdded', { sku: 'a', priceCents: 150 }, 2)).data).toEqual({ sku: 'a', priceCents: 150, quantity: 1 });
    expect(fromEventItem(codec, item('ItemAdded', { sku: 'a', priceCents: 150, quantity: 2 }, 3)).data).toEqual({
      sku: 'a',
      priceCents: 150,
      quantity: 2,
    });
  });

  test('an alias reads as the renamed type', () => {
    const event = fromEventItem(codec, item('ProductRemoved', { sku: 'a' }));
    expect({ type: event.type, data: event.data }).toEqual({ type: 'ItemRemoved', data: { sku: 'a' } });
  });

  test('a retired type reads as what was stored, and is not appended', () => {
    const event = fromEventItem(codec, item('CouponApplied', { code: 'X', anything: [1] }, 2));
    expect(event.data).toEqual({ storedType: 'CouponApplied', storedVersion: 2, data: { code: 'X', anything: [1] } });
    expect(() => validateNewEvent(codec, { type: 'CouponApplied', data: { storedType: 'x', storedVersion: 1, data: {} } }, 0)).toThrow(
      ValidationError,
    );
  });

  test('stored data its own version’s schema refuses is a DecodeError', () => {
    expect(() => fromEventItem(codec, item('ItemAdded', { sku: 'a', priceCents: 150 }))).toThrow(DecodeError);
    expect(() => fromEventItem(codec, item('ItemAdded', { sku: 'a' }, 0))).toThrow(/type version 0/);
  });

  test('an upcast that throws, or returns what the next schema refuses, is an UpcastError naming the event', () => {
    const throwing = eventCodec('Cart', { ItemAdded: today }, false, {
      ItemAdded: {
        older: [
          olderVersion(1, v1, () => {
            throw new Error('no rate');
          }),
          toV3,
        ],
      },
    });
    const caught = (() => {
      try {
        fromEventItem(throwing, item('ItemAdded', { sku: 'a', price: 1 }));
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(caught).toBeInstanceOf(UpcastError);
    expect(caught).toMatchObject({ code: 'store.upcast', streamName: 'Cart', streamId: 'c', version: 4, type: 'ItemAdded', storedVersion: 1 });
    expect((caught as Error).message).toMatch(/the upcast from version 1 threw \(no rate\)/);
    const refused = eventCodec('Cart', { ItemAdded: today }, false, { ItemAdded: { older: [toV2, olderVersion(2, v2, (data) => data)] } });
    expect(() => fromEventItem(refused, item('ItemAdded', { sku: 'a', priceCents: 1 }, 2))).toThrow(
      /the upcast from version 2 returned data version 3's schema refuses: data.quantity/,
    );
    const midway = eventCodec('Cart', { ItemAdded: today }, false, { ItemAdded: { older: [olderVersion(1, v1, () => ({ sku: 1 })), toV3] } });
    expect(() => fromEventItem(midway, item('ItemAdded', { sku: 'a', price: 1 }))).toThrow(UpcastError);
  });

  test('a type version newer than the definition knows is an EventVersionTooNewError, or goes through fromNewer', () => {
    const older = eventCodec('Cart', { ItemAdded: v2 }, false, { ItemAdded: { older: [toV2] } });
    expect(() => fromEventItem(older, item('ItemAdded', { sku: 'a', priceCents: 1, quantity: 2 }, 3))).toThrow(EventVersionTooNewError);
    expect(() => fromEventItem(older, item('ItemAdded', { sku: 'a', priceCents: 1, quantity: 2 }, 3))).toThrow(
      /stored at type version 3\) is newer than version 2, the newest this code knows/,
    );
    const downcasting = eventCodec('Cart', { ItemAdded: v2 }, false, {
      ItemAdded: { older: [toV2], fromNewer: (data, storedVersion) => ({ ...(data as { sku: string; priceCents: number }), from: storedVersion }) },
    });
    expect(fromEventItem(downcasting, item('ItemAdded', { sku: 'a', priceCents: 1, quantity: 2 }, 3)).data).toEqual({ sku: 'a', priceCents: 1 });
    const badDowncast = eventCodec('Cart', { ItemAdded: v2 }, false, { ItemAdded: { older: [toV2], fromNewer: () => ({ sku: 'a' }) as never } });
    expect(() => fromEventItem(badDowncast, item('ItemAdded', { sku: 'a' }, 3))).toThrow(UpcastError);
  });
});
