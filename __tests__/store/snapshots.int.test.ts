import { DeleteItemCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { DecodeError, eventsTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { emptyOrder, evolveOrder, orderStream, placeThenAddItem, range, type OrderEvent, type OrderState } from '../support/orders';
import { countRequests } from '../support/requests';

const client = testClient();
const requests = countRequests(client);
let table: string;
let Orders: ReturnType<typeof orderStream>;

beforeAll(async () => {
  ({ name: table } = await createTestTable(client, eventsTableDefinition, 'snapshots'));
  Orders = orderStream(client, table);
});
afterAll(() => client.destroy());

/**
 * Appends `count` ItemAdded events (after an OrderPlaced at version 1) in sequential appends of `perAppend`
 * (each append one commit, one item).
 */
async function fillOrder(orderId: string, count: number, perAppend = 99): Promise<void> {
  await Orders.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: orderId } }], { expectedVersion: 0 });
  for (let from = 1; from <= count; from += perAppend) {
    const chunk = range(from, Math.min(count, from + perAppend - 1)).map((n) => ({
      type: 'ItemAdded' as const,
      data: { sku: `s-${n}`, price: n % 7 },
    }));
    await Orders.append({ orderId }, chunk, { expectedVersion: from });
  }
}

/** A fold that counts the events it saw. */
function countingFold() {
  const seen = { events: 0 };
  return {
    seen,
    fold: { initial: () => emptyOrder, evolve: (state: OrderState, event: OrderEvent) => ((seen.events += 1), evolveOrder(state, event)) },
  };
}

test('a fold from the latest snapshot equals a full fold', async () => {
  await fillOrder('snap-1', 249);
  const full = countingFold();
  const plain = await Orders.load('snap-1', full.fold);
  expect(plain.version).toBe(250);
  expect(full.seen.events).toBe(250);

  // the first load with snapshots folds everything and saves one
  const first = countingFold();
  expect(await Orders.load('snap-1', first.fold, { snapshot: { every: 100 } })).toEqual(plain);
  expect(first.seen.events).toBe(250);
  expect(await Orders.loadSnapshot('snap-1')).toEqual({ version: 250, state: plain.state });

  await Orders.append('snap-1', [
    { type: 'ItemAdded', data: { sku: 'late', price: 100 } },
    { type: 'OrderShipped', data: {} },
  ]);
  const after = countingFold();
  const loaded = await Orders.load('snap-1', after.fold, { snapshot: { every: 100 } });
  expect(after.seen.events).toBe(2);
  expect(loaded).toEqual(await Orders.load('snap-1', countingFold().fold));
  expect(loaded.state).toMatchObject({ shipped: true, items: 250 });
  // 2 events past the snapshot are fewer than `every`: no new snapshot
  expect((await Orders.loadSnapshot('snap-1'))?.version).toBe(250);
});

test('snapshots only move forward', async () => {
  const id = { orderId: 'snap-2' };
  expect(await Orders.saveSnapshot(id, { version: 10, state: { n: 10 } })).toBe(true);
  expect(await Orders.saveSnapshot(id, { version: 5, state: { n: 5 } })).toBe(false);
  expect(await Orders.saveSnapshot(id, { version: 10, state: { n: 'again' } })).toBe(false);
  expect(await Orders.loadSnapshot(id)).toEqual({ version: 10, state: { n: 10 } });
  expect(await Orders.saveSnapshot(id, { version: 11, state: { n: 11 } })).toBe(true);
  expect(await Orders.loadSnapshot(id)).toEqual({ version: 11, state: { n: 11 } });

  // concurrent savers: the highest version wins whatever the order
  const saves = await Promise.all(
    range(12, 40)
      .reverse()
      .map((version) => Orders.saveSnapshot(id, { version, state: { n: version } })),
  );
  expect(saves[0]).toBe(true); // version 40 was sent first
  expect(await Orders.loadSnapshot(id)).toEqual({ version: 40, state: { n: 40 } });

  // names keep their own snapshots
  expect(await Orders.saveSnapshot(id, { version: 3, state: 'other' }, 'totals')).toBe(true);
  expect(await Orders.loadSnapshot(id, 'totals')).toEqual({ version: 3, state: 'other' });
  expect(await Orders.loadSnapshot({ orderId: 'no-snapshot' })).toBeUndefined();
});

test('a large state is compressed and reads back', async () => {
  const id = { orderId: 'snap-3' };
  const state = { lines: range(1, 2000).map((n) => ({ sku: `sku-${n}`, note: 'fragile, keep upright' })) };
  expect(await Orders.saveSnapshot(id, { version: 1, state })).toBe(true);
  expect(await Orders.loadSnapshot(id)).toEqual({ version: 1, state });
});

test('a snapshot that cannot be read is a DecodeError naming what to do', async () => {
  const key = { pk: 'Order#snap-4', sk: 'snapshot#default' };
  await client.send(new PutItemCommand({ TableName: table, Item: marshall({ ...key, _dfSnapshot: 'Order', version: 3, state: '{not json' }) }));
  const attempt = Orders.loadSnapshot({ orderId: 'snap-4' });
  await expect(attempt).rejects.toBeInstanceOf(DecodeError);
  await expect(attempt).rejects.toThrow(/delete it/);
  await client.send(new DeleteItemCommand({ TableName: table, Key: marshall(key) }));
  expect(await Orders.loadSnapshot({ orderId: 'snap-4' })).toBeUndefined();
});

test('a 10,000-event stream loads, pages and snapshots', async () => {
  await fillOrder('big', 9_999, 9); // 1,112 commits: more than a page of 1,000
  expect(await Orders.version('big')).toBe(10_000);

  requests.reset();
  const versions: number[] = [];
  const fold = { initial: emptyOrder, evolve: (state: OrderState, event: OrderEvent) => (versions.push(event.version), evolveOrder(state, event)) };
  const loaded = await Orders.load('big', fold, { snapshot: { every: 1_000 } });
  expect(loaded.version).toBe(10_000);
  expect(loaded.state).toMatchObject({ placed: true, items: 9_999 });
  expect(versions).toEqual(range(1, 10_000)); // contiguous and in order across pages
  expect(requests.count('QueryCommand')).toBeGreaterThanOrEqual(2); // paged, never one huge read
  expect(await Orders.loadSnapshot('big')).toEqual({ version: 10_000, state: loaded.state });

  versions.length = 0;
  expect(await Orders.load('big', fold, { snapshot: {} })).toEqual(loaded);
  expect(versions).toEqual([]);
  expect((await Orders.read('big', { fromVersion: 4_990, toVersion: 5_010 })).map((e) => e.version)).toEqual(range(4_990, 5_010));
}, 240_000);

test('iterate stops when the consumer breaks, and on an aborted signal', async () => {
  await fillOrder('iter', 30);
  const firstFive: number[] = [];
  for await (const event of Orders.iterate('iter')) {
    firstFive.push(event.version);
    if (firstFive.length === 5) break;
  }
  expect(firstFive).toEqual(range(1, 5));

  const controller = new AbortController();
  controller.abort(new Error('stop reading'));
  const attempt = Orders.read('iter').then(async () => {
    for await (const event of Orders.iterate('iter', { signal: controller.signal })) void event;
  });
  await expect(attempt).rejects.toThrow();
});

describe('a load from a snapshot reads it and the events after it in one Query', () => {
  const fold = () => countingFold();

  test('one Query when the snapshot interval covers the events since the snapshot', async () => {
    await fillOrder('one-query', 249);
    await Orders.load('one-query', fold().fold, { snapshot: { every: 100 } }); // saves one at 250
    await Orders.append('one-query', [{ type: 'ItemAdded', data: { sku: 'late', price: 1 } }]);
    requests.reset();
    const after = fold();
    const loaded = await Orders.load('one-query', after.fold, { snapshot: { every: 100 } });
    expect([...requests.counts]).toEqual([['QueryCommand', 1]]);
    expect(loaded).toEqual(await Orders.load('one-query', fold().fold));
    expect(after.seen.events).toBe(1);

    // At the snapshot's version exactly, too.
    await Orders.saveSnapshot('one-query', { version: 251, state: loaded.state });
    requests.reset();
    const none = fold();
    expect(await Orders.load('one-query', none.fold, { snapshot: { every: 100 } })).toEqual(loaded);
    expect(none.seen.events).toBe(0);
    expect([...requests.counts]).toEqual([['QueryCommand', 1]]);
  }, 60_000);

  test('more events since the snapshot than the Query reached: the rest are read ascending, each once, in order', async () => {
    await fillOrder('long-tail', 99);
    await Orders.load('long-tail', fold().fold, { snapshot: { every: 50 } }); // saves one at 100
    // 20 commits of 6 events since: more than the Query reads with the snapshot.
    for (let n = 0; n < 20; n++) {
      await Orders.append(
        'long-tail',
        range(1, 6).map((sku) => ({ type: 'ItemAdded' as const, data: { sku: `t-${n}-${sku}`, price: 1 } })),
      );
    }
    requests.reset();
    const versions: number[] = [];
    const seen = { initial: emptyOrder, evolve: (state: OrderState, event: OrderEvent) => (versions.push(event.version), evolveOrder(state, event)) };
    const loaded = await Orders.load('long-tail', seen, { snapshot: { every: 50 } });
    expect(requests.count('QueryCommand')).toBe(2);
    expect(requests.count('GetItemCommand')).toBe(0);
    expect(versions).toEqual(range(101, 220));
    expect(loaded).toEqual(await Orders.load('long-tail', fold().fold));
  }, 60_000);

  test("it reads as many commits with the snapshot as the instance's last load found past it, plus those appended since", async () => {
    const limits: number[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand') limits.push((args.input as { Limit?: number }).Limit ?? 0);
        return next(args);
      },
      { step: 'initialize', name: 'queryLimits' },
    );
    try {
      await fillOrder('ahead', 19, 1); // 20 commits of one event
      const state = (await Orders.load('ahead', fold().fold)).state;
      await Orders.saveSnapshot('ahead', { version: 20, state });
      const Fresh = orderStream(client, table); // has loaded nothing yet
      const Other = orderStream(client, table); // another writer
      const load = async () => {
        limits.length = 0;
        requests.reset();
        const loaded = await Fresh.load('ahead', fold().fold, { snapshot: {} });
        const read = { limits: [...limits], queries: requests.count('QueryCommand'), gets: requests.count('GetItemCommand') };
        expect(loaded).toEqual(await Orders.load('ahead', fold().fold));
        return read;
      };
      const newest = { queries: 1, gets: 0 };
      // Not loaded before: the snapshot and 4 commits (`snapshotReadAhead`). At the head, the next reads one.
      expect(await load()).toEqual({ limits: [5], ...newest });
      expect(await load()).toEqual({ limits: [2], ...newest });
      // Two commits of its own since: one each, and one more.
      for (let n = 0; n < 2; n++) await Fresh.append('ahead', [{ type: 'ItemAdded', data: { sku: `own-${n}`, price: 1 } }]);
      expect(await load()).toEqual({ limits: [4], ...newest });
      // Another writer's commit is the one more.
      await Other.append('ahead', [{ type: 'ItemAdded', data: { sku: 'other-0', price: 1 } }]);
      expect(await load()).toEqual({ limits: [4], ...newest });
      // Three of another writer's: the Query falls short, the rest are read ascending (six commits past the
      // snapshot: so do the next loads, reading 4 again).
      for (let n = 1; n <= 3; n++) await Other.append('ahead', [{ type: 'ItemAdded', data: { sku: `other-${n}`, price: 1 } }]);
      const shortOf = { limits: [5, 1001], queries: 2, gets: 0 };
      expect(await load()).toEqual(shortOf);
      expect(await load()).toEqual(shortOf);
      // A snapshot at the head again: the next load reads 4 (its last found 4 or more), the one after it 1.
      await Fresh.saveSnapshot('ahead', await Fresh.load('ahead', fold().fold));
      expect(await load()).toEqual({ limits: [5], ...newest });
      expect(await load()).toEqual({ limits: [2], ...newest });
      // Remembering nothing (`rememberedVersions: 0`), every load reads 4.
      const Forgetful = orderStream(client, table, { rememberedVersions: 0 });
      for (let n = 0; n < 2; n++) {
        limits.length = 0;
        await Forgetful.load('ahead', fold().fold, { snapshot: {} });
        expect(limits).toEqual([5]);
        if (n === 0) await Forgetful.append('ahead', [{ type: 'ItemAdded', data: { sku: 'forgetful', price: 1 } }]);
      }
    } finally {
      client.middlewareStack.remove('queryLimits');
    }
  }, 60_000);

  test('events the snapshot covers are not decoded: one that no longer decodes does not fail a load from the snapshot', async () => {
    await fillOrder('covered', 9, 1);
    const full = await Orders.load('covered', fold().fold, { snapshot: { every: 5 } }); // saves one at 10
    await Orders.append('covered', [{ type: 'ItemAdded', data: { sku: 'after', price: 3 } }]);
    // Version 8 rewritten with a type today's code no longer has (as a retired type removed too early would be).
    const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ pk: 'Order#covered', sk: 'e#0000000008' }) }));
    await client.send(new PutItemCommand({ TableName: table, Item: { ...Item, type: { S: 'ItemGone' } } }));
    requests.reset();
    const loaded = await Orders.load('covered', fold().fold, { snapshot: { every: 5 } });
    expect(loaded.version).toBe(11);
    expect(loaded.state).toMatchObject({ items: (full.state as OrderState).items + 1 });
    expect([...requests.counts]).toEqual([['QueryCommand', 1]]);
    await expect(Orders.load('covered', fold().fold)).rejects.toBeInstanceOf(DecodeError);
  }, 60_000);

  test('snapshots of other names are passed over, whichever sorts first', async () => {
    await fillOrder('names', 9);
    const full = await Orders.load('names', fold().fold);
    await Orders.saveSnapshot('names', { version: 9, state: 'not the default fold' }, 'a-first');
    await Orders.saveSnapshot('names', { version: 4, state: 'neither' }, 'zz-last');
    const loaded = await Orders.load('names', fold().fold, { snapshot: { every: 5 } });
    expect(loaded).toEqual(full);
    expect(await Orders.loadSnapshot('names')).toEqual({ version: 10, state: full.state });
    expect(await Orders.loadSnapshot('names', 'a-first')).toEqual({ version: 9, state: 'not the default fold' });
  }, 60_000);

  test('a stream without a snapshot that the Query reads whole costs one Query, and a bad interval is refused', async () => {
    await fillOrder('young', 9);
    requests.reset();
    const young = fold();
    expect((await Orders.load('young', young.fold, { snapshot: { every: 100 } })).version).toBe(10);
    expect(young.seen.events).toBe(10);
    expect([...requests.counts].filter(([command]) => command !== 'PutItemCommand')).toEqual([['QueryCommand', 1]]);
    for (const every of [0, 1.5, Number.NaN]) {
      await expect(Orders.load('young', fold().fold, { snapshot: { every } })).rejects.toThrow(/`snapshot.every` to be an integer ≥ 1/);
    }
  }, 60_000);

  test("a snapshot saved by 0.2 (under `snapshot#<name>`) is read until a newer one is saved at today's key", async () => {
    await fillOrder('legacy', 299, 1); // 300 commits: the first Query does not reach version 1
    const full = await Orders.load('legacy', fold().fold);
    const at200 = await Orders.load('legacy', {
      initial: emptyOrder,
      evolve: (state: OrderState, event: OrderEvent) => (event.version <= 200 ? evolveOrder(state, event) : state),
    });
    // The item exactly as 0.2 wrote it.
    await client.send(
      new PutItemCommand({
        TableName: table,
        Item: marshall({
          pk: 'Order#legacy',
          sk: 'snapshot#default',
          _dfSnapshot: 'Order',
          version: 200,
          state: JSON.stringify(at200.state),
          timestamp: '2026-06-01T10:00:00.000Z',
        }),
      }),
    );
    expect(await Orders.loadSnapshot('legacy')).toEqual({ version: 200, state: at200.state });

    requests.reset();
    const first = fold();
    expect(await Orders.load('legacy', first.fold, { snapshot: { every: 100 } })).toEqual(full);
    expect(first.seen.events).toBe(100); // from the old snapshot, not from version 1
    expect(requests.count('GetItemCommand')).toBe(1);
    expect(requests.count('PutItemCommand')).toBe(1); // it saved one at today's key

    requests.reset();
    const second = fold();
    expect(await Orders.load('legacy', second.fold, { snapshot: { every: 100 } })).toEqual(full);
    expect(second.seen.events).toBe(0);
    expect([...requests.counts]).toEqual([['QueryCommand', 1]]);
    expect(await Orders.loadSnapshot('legacy')).toEqual({ version: 300, state: full.state });
  }, 60_000);
});

/** Runs `commands` concurrent commands on one order, each adding an item; resolves the stream's version and stored snapshot. */
async function contend(orderId: string, commands: number, every: number, consistent = true) {
  const decider = placeThenAddItem(orderId);
  await Promise.all(
    Array.from({ length: commands }, () =>
      Orders.execute({ orderId }, decider, { snapshot: { every }, consistent, retry: { attempts: 20 } }).catch((error: unknown) => {
        // Out of tries on a hot stream: the command appended nothing, which the checks below allow.
        if (!(error instanceof Error && error.name === 'ConcurrencyError')) throw error;
      }),
    ),
  );
  return { version: await Orders.version({ orderId }), snapshot: await Orders.loadSnapshot<OrderState>({ orderId }) };
}

test('commands that decide again after a lost race save the snapshot their fold passed `every` for', async () => {
  const { version, snapshot } = await contend('contended', 10, 2);
  expect(version).toBeGreaterThanOrEqual(3);
  // The command that appended last decided on the state at version - 1: it stood on a snapshot fewer than
  // `every` events behind, or saved one.
  expect(snapshot?.version ?? 0).toBeGreaterThanOrEqual(version - 2);
  const events = await Orders.read({ orderId: 'contended' }, { toVersion: snapshot?.version ?? 0 });
  expect(snapshot?.state).toEqual(events.reduce(evolveOrder, emptyOrder));
});
