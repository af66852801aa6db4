import { DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { DecodeError, eventsTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { emptyOrder, evolveOrder, orderStream, range, type OrderEvent, type OrderState } from '../support/orders';
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

/** Appends `count` ItemAdded events (after an OrderPlaced at version 1) in sequential chunks of 99. */
async function fillOrder(orderId: string, count: number): Promise<void> {
  await Orders.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: orderId } }], { expectedVersion: 0 });
  for (let from = 1; from <= count; from += 99) {
    const chunk = range(from, Math.min(count, from + 98)).map((n) => ({ type: 'ItemAdded' as const, data: { sku: `s-${n}`, price: n % 7 } }));
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
  await fillOrder('big', 9_999);
  expect(await Orders.version('big')).toBe(10_000);

  requests.reset();
  const versions: number[] = [];
  const fold = { initial: emptyOrder, evolve: (state: OrderState, event: OrderEvent) => (versions.push(event.version), evolveOrder(state, event)) };
  const loaded = await Orders.load('big', fold, { snapshot: { every: 1_000 } });
  expect(loaded.version).toBe(10_000);
  expect(loaded.state).toMatchObject({ placed: true, items: 9_999 });
  expect(versions).toEqual(range(1, 10_000)); // contiguous and in order across pages
  expect(requests.count('QueryCommand')).toBeGreaterThanOrEqual(10); // paged, never one huge read
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
