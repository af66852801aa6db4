import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { DecodeError, EventVersionTooNewError, decoder, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { ChangeFeedConsumer, MemoryCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { createTestTable, testClient } from '../support/dynamo';
import { insertsOnly, readStreamRecords } from '../support/stream-records';
import { asAppended, cartProjectionV2, cartRowModel, cartStreamToday, cartStreamV2 } from '../support/carts';
import { disableStream, localFeed, streamsClient } from '../feed/support';

// During a rolling deploy today's code appends commits that last month's code can't read for two reasons
// at once: a type it never had (ItemRemoved) and ItemAdded at a type version newer than it knows. The
// commit is transient whatever order its events come in: the new code reads it once it runs here.
const client = testClient();
let table: string;
let streamArn: string;
let rowsTable: string;

const orders = { unknownFirst: ['ItemRemoved', 'ItemAdded'], tooNewFirst: ['ItemAdded', 'ItemRemoved'] } as const;
type Order = keyof typeof orders;

/** A cart of three commits: last month's opening, today's mixed commit (versions 2 and 3), last month's reopening. */
async function writeMixed(stream: { table: string; cart: string; order: Order }): Promise<void> {
  const today = cartStreamToday(client, stream.table);
  const middle = cartStreamV2(client, stream.table);
  await middle.append({ cartId: stream.cart }, [{ type: 'CartOpened', data: { owner: 'ada' } }]);
  const mixed = orders[stream.order].map((type) =>
    type === 'ItemRemoved'
      ? asAppended('today', { type: 'Removed', data: { sku: 'x' } })
      : asAppended('today', { type: 'ItemAdded', data: { sku: 'y', euros: 1, quantity: 2 } }),
  );
  await today.append({ cartId: stream.cart }, mixed as never);
  await middle.append({ cartId: stream.cart }, [{ type: 'CartOpened', data: { owner: 'bob' } }]);
}

async function recordsOf(cart: string, arn = streamArn): Promise<_Record[]> {
  return insertsOnly(await readStreamRecords(arn)).filter((record) => record.dynamodb?.NewImage?.['pk']?.S === `Cart#${cart}`);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

beforeAll(async () => {
  const created = await createTestTable(client, eventsTableDefinition, 'commit-decode');
  table = created.name;
  streamArn = created.streamArn as string;
  rowsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [cartRowModel(client, name, 'MixRow')]), 'commit-decode-rows'))
    .name;
  for (const order of Object.keys(orders) as Order[]) await writeMixed({ table, cart: `c-${order}`, order });
});
afterAll(() => client.destroy());

describe.each(Object.keys(orders) as Order[])('a commit of a type the reader never had and a newer type version (%s)', (order) => {
  const cart = `c-${order}`;
  const middle = () => cartStreamV2(client, table);

  test('reads and the decoder fail it as too new', async () => {
    await expect(middle().read(cart)).rejects.toBeInstanceOf(EventVersionTooNewError);
    await expect(middle().read(cart, { fromVersion: 2, toVersion: 3 })).rejects.toMatchObject({ code: 'store.eventVersionTooNew', storedVersion: 3 });
    const mixed = (await recordsOf(cart))[1]?.dynamodb?.NewImage;
    expect(() => decoder({ Cart: middle() })(mixed)).toThrow(EventVersionTooNewError);
  });

  test('processBatch fails and reports its record even when decode failures are skipped', async () => {
    const records = await recordsOf(cart);
    const projection = cartProjectionV2(middle(), cartRowModel(client, rowsTable, `MixBatch${order}`), `MixBatch${order}`);
    const result = await processBatch(records, { projections: { carts: projection }, source: 'lambda', onDecodeFailure: 'skip', logger: false });
    expect(result.decodeFailures.map((failure) => [failure.position, failure.error])).toEqual([[1, expect.any(EventVersionTooNewError)]]);
    expect(result.response.batchItemFailures).toContainEqual({ itemIdentifier: records[1]?.dynamodb?.SequenceNumber });
    // Version 4's row reads the versions before it, and fails on the same commit.
    for (const outcome of result.outcomes.carts) expect(outcome).toMatchObject({ status: 'failed', error: expect.any(EventVersionTooNewError) });
  });

  test('a gap read, catchUp, rebuild, backfill and retryParked fail as too new and count nothing towards parking', async () => {
    const name = `MixRow${order}`;
    const model = cartRowModel(client, rowsTable, name);
    const key = { cartId: cart };
    // A parked row, so that retryParked meets the commit: last month's evolve fails on version 1, and parks it.
    const buggy = cartProjectionV2(middle(), model, name, { afterAttempts: 1, bug: (event) => event.version === 1 });
    const [first, , last] = await recordsOf(cart);
    expect((await buggy.processBatch([first as _Record], { source: 'lambda', logger: false })).outcomes.map((o) => o.status)).toEqual(['parked']);
    // Version 4 reaches the parked row, which notes it: a replay reads versions 1 to 4.
    await buggy.processBatch([last as _Record], { source: 'lambda', logger: false });

    const old = cartProjectionV2(middle(), model, name, { afterAttempts: 1 });
    await expect(old.retryParked()).resolves.toEqual([expect.objectContaining({ status: 'failed', error: expect.any(EventVersionTooNewError) })]);
    expect(await collect(old.parkedRows())).toEqual([expect.objectContaining({ attempts: 1, through: { [`Cart#${cart}`]: 4 } })]);

    // A row of its own: version 4 alone, whose gap read meets versions 2 and 3.
    const fresh = cartProjectionV2(middle(), cartRowModel(client, rowsTable, `${name}Gap`), `${name}Gap`, { afterAttempts: 1 });
    for (let delivery = 0; delivery < 2; delivery++) {
      const result = await fresh.processBatch([last as _Record], { source: 'lambda', logger: false });
      expect(result.outcomes).toEqual([expect.objectContaining({ status: 'failed', error: expect.any(EventVersionTooNewError) })]);
    }
    await expect(fresh.catchUp(cart)).rejects.toBeInstanceOf(EventVersionTooNewError);
    await expect(fresh.rebuild(cart)).rejects.toBeInstanceOf(EventVersionTooNewError);
    const backfill = fresh.backfill({ retry: { attempts: 2, backoff: { initialMs: 1, maxMs: 1 } } });
    await expect(backfill).rejects.toMatchObject({ code: 'projector.backfillFailed', cause: expect.any(EventVersionTooNewError) });
    expect(await collect(fresh.parkedRows())).toEqual([]);
    expect(await fresh.readModel.getItem(key)).toBeUndefined();
  });
});

test('the change feed fails the commit as too new in both orders, with decode failures skipped', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'commit-decode-feed');
  for (const order of Object.keys(orders) as Order[]) await writeMixed({ table: events.name, cart: `f-${order}`, order });
  await disableStream(client, events.name);
  const streams = streamsClient();
  try {
    const feed = new ChangeFeedConsumer({
      ...localFeed,
      streamsClient: streams,
      streamArn: events.streamArn as string,
      checkpoints: new MemoryCheckpointStore(),
    });
    const projection = cartProjectionV2(cartStreamV2(client, events.name), cartRowModel(client, rowsTable, 'MixFeed'), 'MixFeed');
    const failures = new Map<string, unknown>();
    await runChangeFeed(feed, {
      projections: { carts: projection },
      onDecodeFailure: 'skip',
      logger: false,
      onBatch: (result) => {
        for (const failure of result.decodeFailures) failures.set(String(failure.record.dynamodb?.NewImage?.['pk']?.S), failure.error);
        // Each mixed commit is failed, so the feed reads it again: stop once both were seen.
        if (failures.size === 2) void feed.stop();
      },
    });
    expect(Object.fromEntries(failures)).toEqual({
      'Cart#f-unknownFirst': expect.any(EventVersionTooNewError),
      'Cart#f-tooNewFirst': expect.any(EventVersionTooNewError),
    });
  } finally {
    streams.destroy();
  }
});

test('a commit whose every failing event is of a type the reader never had stays a plain DecodeError', async () => {
  const today = cartStreamToday(client, table);
  await today.append({ cartId: 'c-unknown' }, [
    { type: 'ItemRemoved', data: { sku: 'x' } },
    { type: 'CartOpened', data: { owner: 'ada' } },
  ]);
  const error = await cartStreamV2(client, table)
    .read('c-unknown')
    .then(
      () => undefined,
      (failure: unknown) => failure,
    );
  expect(error).toBeInstanceOf(DecodeError);
  expect(error).toMatchObject({ message: expect.stringContaining('unknown type "ItemRemoved"') });
});
