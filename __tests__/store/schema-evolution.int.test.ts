import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { z } from 'zod';
import {
  EventStream,
  EventVersionTooNewError,
  Projection,
  UpcastError,
  decoder,
  eventsTableDefinition,
  olderVersion,
  readModelTableDefinition,
  type StreamEvent,
} from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { lambdaImage, readStreamRecords, type SdkImage } from '../support/stream-images';
import {
  asAppended,
  cartEventsToday,
  cartProjection as cartProjectionOf,
  cartProjectionV2,
  cartRowModel,
  cartRowOf,
  totalOf,
  cartStreamToday,
  cartStreamV1,
  cartStreamV2,
  emptyCart,
  evolveCart,
  expectedToday,
  itemAddedHistory,
  type Cart,
  type WrittenCartEvent,
} from '../support/carts';

const client = testClient();
let table: string;
let streamArn: string;
let rowsTable: string;

const cartRows = (name = 'CartRow', rows = rowsTable) => cartRowModel(client, rows, name);
const cartProjection = (stream: ReturnType<typeof cartStreamToday>, name: string) => cartProjectionOf(stream, cartRows(name), name);

/** A cart's history as three generations of code wrote it. */
const history: ReadonlyArray<readonly ['v1' | 'v2' | 'today', WrittenCartEvent]> = [
  ['v1', { type: 'CartOpened', data: { owner: 'ada' } }],
  ['v1', { type: 'ItemAdded', data: { sku: 'a', euros: 1.5, quantity: 1 } }],
  ['v1', { type: 'CouponApplied', data: { code: 'WELCOME' } }],
  ['v2', { type: 'ItemAdded', data: { sku: 'b', euros: 2.25, quantity: 1 } }],
  ['v2', { type: 'Removed', data: { sku: 'a' } }],
  ['today', { type: 'ItemAdded', data: { sku: 'c', euros: 0.1, quantity: 3 } }],
  ['today', { type: 'Removed', data: { sku: 'b' } }],
  ['today', { type: 'ItemAdded', data: { sku: 'b', euros: 3, quantity: 2 } }],
];
const expectedEvents = history.map(([generation, event]) => expectedToday(generation, event));
const expectedCart = expectedEvents.reduce((cart, event) => evolveCart(cart, event as never), emptyCart);

async function writeHistory(cartId: string): Promise<void> {
  const writers = { v1: cartStreamV1(client, table), v2: cartStreamV2(client, table), today: cartStreamToday(client, table) };
  for (const [generation, event] of history) {
    await (writers[generation] as EventStream).append({ cartId }, [asAppended(generation, event)]);
  }
}

async function rawItem(cartId: string, version: number): Promise<Record<string, unknown>> {
  const { Item } = await client.send(
    new GetItemCommand({ TableName: table, Key: { pk: { S: `Cart#${cartId}` }, sk: { S: `e#${String(version).padStart(10, '0')}` } } }),
  );
  return unmarshall(Item ?? {});
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const typesAndData = (events: ReadonlyArray<StreamEvent>) => events.map(({ type, data }) => ({ type, data }));

async function recordsOf(cartId: string): Promise<_Record[]> {
  const records = await readStreamRecords(streamArn);
  return records.filter((record) => record.eventName === 'INSERT' && record.dynamodb?.NewImage?.['pk']?.S === `Cart#${cartId}`);
}

beforeAll(async () => {
  const created = await createTestTable(client, eventsTableDefinition, 'schema');
  table = created.name;
  streamArn = created.streamArn as string;
  rowsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [cartRows('CartRow', name)]), 'schema-rows')).name;
  await writeHistory('c-1');
});
afterAll(() => client.destroy());

describe('events written by older definitions read in today’s shapes', () => {
  test('an append stores its type’s version; events of version 1 carry none', async () => {
    expect((await rawItem('c-1', 2))['tv']).toBeUndefined();
    expect((await rawItem('c-1', 4))['tv']).toBe(2);
    expect((await rawItem('c-1', 6))['tv']).toBe(3);
    expect((await rawItem('c-1', 7))['tv']).toBeUndefined();
  });

  test('read, readFrom and iterate upcast', async () => {
    const Carts = cartStreamToday(client, table);
    expect(typesAndData(await Carts.read({ cartId: 'c-1' }))).toEqual(expectedEvents);
    expect(typesAndData(await Carts.readFrom('c-1', 3, { toVersion: 5 }))).toEqual(expectedEvents.slice(3, 5));
    const iterated: StreamEvent[] = [];
    for await (const event of Carts.iterate('c-1', { fromVersion: 2 })) iterated.push(event);
    expect(typesAndData(iterated)).toEqual(expectedEvents.slice(1));
  });

  test('load and execute fold the upcast events', async () => {
    const Carts = cartStreamToday(client, table);
    const fold = { initial: emptyCart, evolve: evolveCart };
    expect(await Carts.load('c-1', fold)).toEqual({ state: expectedCart, version: history.length });
    const result = await Carts.execute('c-1', {
      ...fold,
      decide: (cart) => (cart.lines['c'] === undefined ? [] : [{ type: 'ItemRemoved', data: { sku: 'c' } }]),
    });
    expect(result.state.lines['c']).toBeUndefined();
    expect(result.version).toBe(history.length + 1);
  });

  test('the decoder upcasts stream images as the SDK and as Lambda deliver them', async () => {
    await writeHistory('c-images');
    const decode = decoder({ Cart: cartStreamToday(client, table) });
    const records = await recordsOf('c-images');
    expect(records).toHaveLength(history.length);
    for (const shape of [(image: SdkImage) => image, lambdaImage]) {
      const decoded = records.map((record) => decode(shape(record.dynamodb?.NewImage as SdkImage))?.event as StreamEvent);
      expect(typesAndData(decoded)).toEqual(expectedEvents);
    }
  });

  test('a projection sees only today’s shapes: applied from stream records, caught up, rebuilt', async () => {
    await writeHistory('c-proj');
    const expectedRow = { cartId: 'c-proj', owner: 'ada', totalCents: totalOf(expectedCart), coupons: 1 };
    const projection = cartProjection(cartStreamToday(client, table), 'CartRow');
    const records = await recordsOf('c-proj');
    // Newest first and twice: out of order, redelivered.
    const result = await projection.processBatch([...records.slice(4).reverse(), ...records.slice(0, 4), ...records.slice(2)], {
      source: 'lambda',
      logger: false,
    });
    expect(result.response.batchItemFailures).toEqual([]);
    expect(await projection.readModel.get({ cartId: 'c-proj' })).toMatchObject(expectedRow);
    expect((await projection.rebuild('c-proj')).rows).toHaveLength(1);
    expect(await projection.readModel.get({ cartId: 'c-proj' })).toMatchObject(expectedRow);

    const late = cartProjection(cartStreamToday(client, table), 'CartRowLate');
    // Only the last event delivered: the gap read upcasts the rest.
    await late.processBatch(records.slice(-1), { source: 'lambda', logger: false });
    expect(await late.readModel.get({ cartId: 'c-proj' })).toMatchObject(expectedRow);
    const caughtUp = cartProjection(cartStreamToday(client, table), 'CartRowCaughtUp');
    await caughtUp.catchUp('c-proj');
    expect(await caughtUp.readModel.get({ cartId: 'c-proj' })).toMatchObject(expectedRow);
  });

  test('a retired type with skip never reaches a fold', async () => {
    const Carts = cartStreamToday(client, table, { skipRetired: true });
    const read = await Carts.read('c-1', { toVersion: 3 });
    expect(read.map((event) => event.type)).toEqual(['CartOpened', 'ItemAdded', 'CouponApplied']);
    const loaded = await Carts.load('c-1', { initial: emptyCart, evolve: evolveCart }, {});
    expect(loaded.state.coupons).toBe(0);
    const projection = cartProjection(Carts, 'CartRowSkipping');
    await projection.catchUp('c-1');
    expect(await projection.readModel.get({ cartId: 'c-1' })).toMatchObject({ coupons: 0, totalCents: totalOf(loaded.state) });
  });

  test('an upcast that fails rejects the command, naming the event, and nothing is written', async () => {
    const Broken = new EventStream({
      client,
      table,
      name: 'Cart',
      streamId: ['cartId'],
      events: cartEventsToday,
      versions: {
        ItemAdded: {
          older: [
            olderVersion(1, z.object({ sku: z.string(), price: z.number() }), () => {
              throw new Error('rates unknown');
            }),
            itemAddedHistory.older[1] as never,
          ],
        },
        ItemRemoved: { aliases: ['ProductRemoved'] },
      },
    });
    const before = await cartStreamToday(client, table).version('c-1');
    const command = Broken.execute('c-1', { initial: emptyCart, evolve: evolveCart, decide: () => [{ type: 'CartOpened', data: { owner: 'eve' } }] });
    await expect(command).rejects.toBeInstanceOf(UpcastError);
    await expect(command).rejects.toMatchObject({ streamName: 'Cart', streamId: 'c-1', version: 2, type: 'ItemAdded', storedVersion: 1 });
    expect(await cartStreamToday(client, table).version('c-1')).toBe(before);
  });
});

describe('rolling deploys: a reader older than the writer', () => {
  test('an event of a newer type version is EventVersionTooNewError, and fails its record even when decode failures are skipped', async () => {
    await writeHistory('c-new');
    const older = cartStreamV2(client, table);
    await expect(older.read('c-new')).rejects.toBeInstanceOf(EventVersionTooNewError);
    await expect(older.read('c-new')).rejects.toMatchObject({ code: 'store.eventVersionTooNew', version: 6, storedVersion: 3, knownVersion: 2 });
    const projection = new Projection({
      stream: older,
      readModel: cartRows('CartRowOld'),
      key: (streamId) => ({ cartId: streamId.cartId }),
      initial: (streamId) => cartRowOf(streamId.cartId, emptyCart, 0),
      evolve: (state, event) => (event.type === 'ItemAdded' ? { ...state, totalCents: state.totalCents + event.data.priceCents } : state),
      checkpoint: 'version',
    });
    const records = await recordsOf('c-new');
    const newer = records[5]?.dynamodb?.SequenceNumber;
    for (const onDecodeFailure of ['report', 'skip'] as const) {
      const result = await projection.processBatch(records, { source: 'lambda', onDecodeFailure, logger: false });
      expect(result.decodeFailures[0]?.error).toBeInstanceOf(EventVersionTooNewError);
      expect(result.response.batchItemFailures.map((failure) => failure.itemIdentifier)).toContain(newer);
    }
  });

  test('a rolling deploy never parks a row: every path fails and reports the newer event, uncounted, and the new code completes the row', async () => {
    const today = cartStreamToday(client, table);
    const middle = cartStreamV2(client, table);
    // New code appends version 1 (ItemAdded at type version 3), middle code version 2 (at type version 2).
    await today.append({ cartId: 'c-roll' }, [asAppended('today', { type: 'ItemAdded', data: { sku: 'a', euros: 1, quantity: 2 } }) as never]);
    await middle.append({ cartId: 'c-roll' }, [asAppended('v2', { type: 'ItemAdded', data: { sku: 'b', euros: 2, quantity: 1 } }) as never]);
    const [, second] = await recordsOf('c-roll');
    const old = cartProjectionV2(middle, cartRows('CartRoll'), 'CartRoll', { afterAttempts: 2 });
    const key = { cartId: 'c-roll' };
    const untouched = async () => {
      expect(await old.readModel.getItem(key)).toBeUndefined();
      expect(await collect(old.parkedRows())).toEqual([]);
    };
    // The middle code gets version 2's record alone, again and again: its gap read meets version 1.
    for (let delivery = 0; delivery < 4; delivery++) {
      const result = await old.processBatch([second as _Record], { source: 'lambda', logger: false });
      expect(result.outcomes.map((outcome) => outcome.status)).toEqual(['failed']);
      expect(result.outcomes[0]).toMatchObject({ error: expect.any(EventVersionTooNewError) });
      expect(result.response.batchItemFailures).toEqual([{ itemIdentifier: second?.dynamodb?.SequenceNumber }]);
      await untouched();
    }
    // catchUp, rebuild and backfill meet it too, and count nothing either.
    await expect(old.catchUp('c-roll')).rejects.toBeInstanceOf(EventVersionTooNewError);
    await expect(old.rebuild('c-roll')).rejects.toBeInstanceOf(EventVersionTooNewError);
    const backfill = old.backfill({ retry: { attempts: 2, backoff: { initialMs: 1, maxMs: 1 } } });
    await expect(backfill).rejects.toMatchObject({ code: 'projector.backfillFailed', cause: expect.any(EventVersionTooNewError) });
    await untouched();
    // The new code runs: the redelivered record completes the row, with no operator step.
    const now = cartProjection(today, 'CartRoll');
    const result = await now.processBatch([second as _Record], { source: 'lambda', logger: false });
    expect(result.response.batchItemFailures).toEqual([]);
    expect(await now.readModel.get(key)).toMatchObject({ totalCents: 2 * 100 + 200, version: 2 });
  });

  test('replaying a parked row that meets a newer event fails it without counting an attempt', async () => {
    const today = cartStreamToday(client, table);
    const middle = cartStreamV2(client, table);
    await middle.append({ cartId: 'c-replay' }, [{ type: 'CartOpened', data: { owner: 'ada' } }]);
    await today.append({ cartId: 'c-replay' }, [asAppended('today', { type: 'ItemAdded', data: { sku: 'a', euros: 1, quantity: 1 } }) as never]);
    await middle.append({ cartId: 'c-replay' }, [{ type: 'CartOpened', data: { owner: 'bob' } }]);
    const records = await recordsOf('c-replay');
    const buggy = cartProjectionV2(middle, cartRows('CartReplay'), 'CartReplay', { afterAttempts: 1, bug: (event) => event.version === 1 });
    const first = await buggy.processBatch([records[0] as _Record], { source: 'lambda', logger: false });
    expect(first.outcomes.map((outcome) => outcome.status)).toEqual(['parked']);
    // Version 3 reaches the parked row (version 2 is a decode failure for this code, reported).
    await buggy.processBatch([records[2] as _Record], { source: 'lambda', logger: false });
    const [parked] = await collect(buggy.parkedRows());
    expect(parked).toMatchObject({ attempts: 1, through: { 'Cart#c-replay': 3 } });
    // The bug is fixed, but the replay reads version 2, which only the new code knows.
    const fixed = cartProjectionV2(middle, cartRows('CartReplay'), 'CartReplay', { afterAttempts: 1 });
    const [replayed] = await fixed.retryParked();
    expect(replayed).toMatchObject({ status: 'failed', error: expect.any(EventVersionTooNewError) });
    expect(await collect(fixed.parkedRows())).toEqual([expect.objectContaining({ attempts: 1 })]);
    const [done] = await cartProjection(today, 'CartReplay').retryParked();
    expect(done).toMatchObject({ status: 'applied' });
    expect(await buggy.readModel.get({ cartId: 'c-replay' })).toMatchObject({ owner: 'bob', totalCents: 100, version: 3 });
  });

  test('a fromNewer downcast lets the older reader read on', async () => {
    const downcasting = new EventStream({
      client,
      table,
      name: 'Cart',
      streamId: ['cartId'],
      events: { ...cartStreamV2(client, table).events },
      versions: {
        ItemAdded: {
          older: [itemAddedHistory.older[0] as never],
          fromNewer: (data) => {
            const { sku, priceCents, quantity } = data as { sku: string; priceCents: number; quantity: number };
            return { sku, priceCents: priceCents * quantity };
          },
        },
      },
    });
    const events = await downcasting.read('c-1', { fromVersion: 6, toVersion: 6 });
    expect(events[0]?.data).toEqual({ sku: 'c', priceCents: 30 });
  });
});

describe('snapshots record the version of their state', () => {
  const fold = { initial: emptyCart, evolve: evolveCart };
  /** Last year's fold kept euros in its state. */
  const oldFold = {
    initial: { owner: '', euros: 0 },
    evolve: (state: { owner: string; euros: number }, event: StreamEvent) =>
      event.type === 'ItemAdded' ? { ...state, euros: state.euros + (event.data as { price: number }).price } : state,
  };

  test('a snapshot of another version is ignored (and replaced), or upcast with the function given', async () => {
    await writeHistory('c-snap');
    // Last year's code, at state version 1, snapshotted the stream at version 3.
    const Carts = cartStreamToday(client, table);
    expect(oldFold.evolve(oldFold.initial, { type: 'ItemAdded', data: { price: 1.5 } } as StreamEvent).euros).toBe(1.5);
    await Carts.saveSnapshot('c-snap', { version: 3, state: { owner: 'ada', euros: 1.5 } });
    expect(await Carts.loadSnapshot('c-snap')).toEqual({ version: 3, state: { owner: 'ada', euros: 1.5 } });

    let upcasts = 0;
    const upcast = (state: unknown, storedVersion: number): Cart => {
      upcasts++;
      expect(storedVersion).toBe(1);
      const old = state as { owner: string; euros: number };
      // Not what folding gives: shows the load started from the upcast snapshot.
      return { owner: `${old.owner} (upcast)`, lines: {}, coupons: 0 };
    };
    const upcast3 = await Carts.load('c-snap', fold, { snapshot: { version: 2, upcast } });
    expect(upcasts).toBe(1);
    expect(upcast3.state.owner).toBe('ada (upcast)');

    const ignored = await Carts.load('c-snap', fold, { snapshot: { version: 2, every: 1 } });
    expect(ignored).toEqual({ state: expectedCart, version: history.length });
    expect(await Carts.loadSnapshot('c-snap')).toEqual({ version: history.length, state: expectedCart, stateVersion: 2 });

    // The old code, still running somewhere, ignores the newer snapshot and never replaces it.
    const OldCarts = cartStreamV1(client, table, 'Cart');
    await OldCarts.append('c-snap', [{ type: 'CartOpened', data: { owner: 'bob' } }]);
    const snapshotBefore = await Carts.loadSnapshot('c-snap');
    expect(await OldCarts.saveSnapshot('c-snap', { version: history.length + 1, state: { owner: 'bob', euros: 0 } })).toBe(false);
    expect(await Carts.loadSnapshot('c-snap')).toEqual(snapshotBefore);
  });

  test('a state version below 1 is refused', async () => {
    const Carts = cartStreamToday(client, table);
    await expect(Carts.load('c-1', fold, { snapshot: { version: 0 } })).rejects.toThrow(/`snapshot.version` to be an integer ≥ 1/);
  });
});
