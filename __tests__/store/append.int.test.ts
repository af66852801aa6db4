import { AppendContentionError, ConcurrencyError, DynafoldError, eventsTableDefinition } from 'dynafold';
import { deciderSpec } from 'dynafold/testing';
import { createTestTable, testClient } from '../support/dynamo';
import { emptyOrder, evolveOrder, orderStream, range, type OrderState } from '../support/orders';
import { countRequests } from '../support/requests';

const client = testClient();
const requests = countRequests(client);
let Orders: ReturnType<typeof orderStream>;

beforeAll(async () => {
  const { name } = await createTestTable(client, eventsTableDefinition, 'append');
  Orders = orderStream(client, name);
});
afterAll(() => client.destroy());

const HEAD_WRITERS = 50;
let sequence = 0;
const freshId = () => ({ orderId: `o-${++sequence}-${Date.now().toString(36)}` });

async function versionsOf(id: { orderId: string }): Promise<number[]> {
  return (await Orders.read(id)).map((event) => event.version);
}

describe('appends with expectedVersion', () => {
  test('50 concurrent appenders: contiguous versions, losers get ConcurrencyError with the actual version', async () => {
    const id = freshId();
    await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'ada' } }], { expectedVersion: 0 });

    const outcomes = await Promise.allSettled(
      range(1, 50).map(async (n) => {
        const head = await Orders.version(id);
        return Orders.append(id, [{ type: 'ItemAdded', data: { sku: `sku-${n}`, price: n } }], { expectedVersion: head });
      }),
    );

    const won = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason as unknown);
    expect(won.length).toBeGreaterThanOrEqual(1);
    expect(won.length + lost.length).toBe(50);
    for (const error of lost) {
      expect(error).toBeInstanceOf(ConcurrencyError);
      const conflict = error as ConcurrencyError;
      expect(conflict.code).toBe('store.concurrency');
      expect(conflict.streamName).toBe('Order');
      expect(conflict.streamId).toBe(id.orderId);
      expect(conflict.actualVersion).toBeGreaterThan(conflict.expectedVersion);
      expect(conflict.actualVersion).toBeLessThanOrEqual(1 + won.length);
    }
    const winningVersions = won.map((result) => result.version).sort((a, b) => a - b);
    expect(new Set(winningVersions).size).toBe(won.length); // no version was written twice
    const events = await Orders.read(id);
    expect(events.map((event) => event.version)).toEqual(range(1, 1 + won.length));
    expect(events.slice(1).map((event) => event.version)).toEqual(winningVersions);
    // every winner's event is stored at the version it was told
    for (const result of won) expect(events[result.version - 1]).toEqual(result.events[0]);
  });

  test('50 concurrent commands through execute are each applied exactly once', async () => {
    const id = freshId();
    await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'bob' } }], { expectedVersion: 0 });
    requests.reset();

    const results = await Promise.all(
      range(1, 50).map((n) =>
        Orders.execute<OrderState>(
          id,
          {
            initial: emptyOrder,
            evolve: evolveOrder,
            decide: (state) => (state.shipped ? [] : [{ type: 'ItemAdded', data: { sku: `sku-${n}`, price: n } }]),
          },
          { retry: { attempts: 200 } },
        ),
      ),
    );

    const events = await Orders.read(id);
    expect(events.map((event) => event.version)).toEqual(range(1, 51));
    const skus = events.slice(1).map((event) => (event.type === 'ItemAdded' ? event.data.sku : event.type));
    expect([...skus].sort()).toEqual(
      range(1, 50)
        .map((n) => `sku-${n}`)
        .sort(),
    );
    expect(results.map((result) => result.version).sort((a, b) => a - b)).toEqual(range(2, 51));
    for (const result of results) {
      expect(result.events).toHaveLength(1);
      expect(result.state.items).toBe(result.version - 1);
    }
    // conflicts happened and were retried, each one event a conditional PutItem
    expect(requests.count('PutItemCommand')).toBeGreaterThan(50);
    expect(requests.count('TransactWriteItemsCommand')).toBe(0);
    const { state } = await Orders.load<OrderState>(id, { initial: emptyOrder, evolve: evolveOrder });
    expect(state).toEqual({ placed: true, shipped: false, items: 50, total: (50 * 51) / 2 });
    // 50 commands reloading and retrying take 17 s here at a load of 8; the suite's load can triple that.
  }, 180_000);

  test('a command whose decision is empty appends nothing; a domain error from decide is passed through', async () => {
    const id = freshId();
    const inStore = deciderSpec(Orders, { store: { streamId: id } });
    const noop = await inStore.when<OrderState>({ initial: emptyOrder, evolve: evolveOrder, decide: () => [] }).thenEvents([]);
    expect(noop).toEqual({ state: emptyOrder, version: 0, events: [] });

    class NotPlaced extends Error {}
    const error = await inStore
      .when<OrderState>({
        initial: emptyOrder,
        evolve: evolveOrder,
        decide: (state) => {
          if (!state.placed) throw new NotPlaced('place the order first');
          return [{ type: 'OrderShipped', data: {} }];
        },
      })
      .thenThrows(NotPlaced);
    expect(error).toBeInstanceOf(NotPlaced);
    expect(await Orders.version(id)).toBe(0);
  });

  test('an expectedVersion ahead of the head fails and never leaves a gap', async () => {
    const id = freshId();
    await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'cy' } }], { expectedVersion: 0 });
    for (const expectedVersion of [2, 5, 100]) {
      const attempt = Orders.append(id, [{ type: 'ItemAdded', data: { sku: 'x', price: 1 } }], { expectedVersion });
      await expect(attempt).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(attempt).rejects.toMatchObject({ code: 'store.concurrency', expectedVersion, actualVersion: 1 });
    }
    expect(await versionsOf(id)).toEqual([1]);
    // and one behind the head fails too
    await Orders.append(id, [{ type: 'ItemAdded', data: { sku: 'y', price: 2 } }], { expectedVersion: 1 });
    await expect(Orders.append(id, [{ type: 'OrderShipped', data: {} }], { expectedVersion: 1 })).rejects.toMatchObject({
      code: 'store.concurrency',
      expectedVersion: 1,
      actualVersion: 2,
    });
    expect(await versionsOf(id)).toEqual([1, 2]);
  });

  test('an append of several events is one commit, one PutItem, and gets consecutive versions', async () => {
    const id = freshId();
    requests.reset();
    const result = await Orders.append(
      id,
      [
        { type: 'OrderPlaced', data: { customer: 'di' } },
        { type: 'ItemAdded', data: { sku: 'a', price: 1.5 } },
        { type: 'ItemAdded', data: { sku: 'b', price: 2.25 }, metadata: { source: 'event' } },
      ],
      { expectedVersion: 0, metadata: { source: 'append', user: 'u-1' } },
    );
    expect(Object.fromEntries(requests.counts)).toEqual({ PutItemCommand: 1 });
    expect(result.version).toBe(3);
    expect(result.events.map((event) => [event.version, event.type])).toEqual([
      [1, 'OrderPlaced'],
      [2, 'ItemAdded'],
      [3, 'ItemAdded'],
    ]);
    expect(result.events[0]?.metadata).toEqual({ source: 'append', user: 'u-1' });
    expect(result.events[2]?.metadata).toEqual({ source: 'event', user: 'u-1' });
    expect(await Orders.read(id)).toEqual(result.events);
    // A range that starts and ends inside the commit returns just its versions.
    expect(await Orders.read(id, { fromVersion: 2, toVersion: 2 })).toEqual([result.events[1]]);
    expect(await Orders.read(id, { fromVersion: 2 })).toEqual(result.events.slice(1));
    expect(await Orders.read(id, { toVersion: 2 })).toEqual(result.events.slice(0, 2));
    expect(await Orders.readFrom(id, 1)).toEqual(result.events.slice(1));
    expect(await Orders.readFrom(id, 3)).toEqual([]);
    expect(await Orders.version(id)).toBe(3);
    expect(await Orders.version(freshId())).toBe(0);
  });
});

describe('appends at the head (no expectedVersion)', () => {
  test('50 concurrent writers on one stream all land with the default attempts, each exactly once', async () => {
    const id = freshId();
    // The default 20 s budget is for DynamoDB; DynamoDB Local serialises transactions behind a lock, and
    // under the whole suite's load 50 commits in a row can take longer than that. The attempts are the default.
    const retry = { maxElapsedMs: 120_000 };
    const results = await Promise.all(
      range(1, HEAD_WRITERS).map((n) => Orders.append(id, [{ type: 'ItemAdded', data: { sku: `h-${n}`, price: n } }], { retry })),
    );
    const events = await Orders.read(id);
    expect(events.map((event) => event.version)).toEqual(range(1, HEAD_WRITERS));
    expect(events.map((event) => (event.type === 'ItemAdded' ? event.data.sku : '')).sort()).toEqual(
      range(1, HEAD_WRITERS)
        .map((n) => `h-${n}`)
        .sort(),
    );
    expect(results.map((result) => result.version).sort((a, b) => a - b)).toEqual(range(1, HEAD_WRITERS));
  }, 150_000);

  test('a writer that runs out of tries fails with AppendContentionError naming the tries and the option, not an expected version', async () => {
    const id = freshId();
    const outcomes = await Promise.allSettled(
      range(1, 20).map((n) => Orders.append(id, [{ type: 'ItemAdded', data: { sku: `g-${n}`, price: n } }], { retry: { attempts: 1 } })),
    );
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(lost.length).toBeGreaterThan(0);
    for (const outcome of lost) {
      expect(outcome.reason).toBeInstanceOf(AppendContentionError);
      expect(outcome.reason).toMatchObject({ code: 'store.appendContention', streamName: 'Order', streamId: id.orderId, attempts: 1 });
      expect((outcome.reason as Error).message).toMatch(/lost to concurrent writers 1 times .*`retry\.attempts` or `retry\.maxElapsedMs`/);
      expect((outcome.reason as Error).message).not.toMatch(/expected/);
    }
    expect(await versionsOf(id)).toEqual(range(1, 20 - lost.length));
  });
});

describe('idempotent appends', () => {
  test('a retried append with the same key appends once and returns the first result', async () => {
    const id = freshId();
    const first = await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'ed' } }], { expectedVersion: 0, idempotencyKey: 'place-1' });
    const again = await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'ed' } }], { expectedVersion: 0, idempotencyKey: 'place-1' });
    expect(again).toEqual(first);

    // the stream moved on; the retry still answers with the first result instead of a conflict
    await Orders.append(id, [{ type: 'ItemAdded', data: { sku: 'z', price: 3 } }], { idempotencyKey: 'add-1' });
    const late = await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'ed' } }], { expectedVersion: 0, idempotencyKey: 'place-1' });
    expect(late).toEqual(first);
    const atHead = await Orders.append(id, [{ type: 'ItemAdded', data: { sku: 'z', price: 3 } }], { idempotencyKey: 'add-1' });
    expect(atHead.version).toBe(2);
    expect(await versionsOf(id)).toEqual([1, 2]);

    // a key is per stream instance: another order may use the same one
    const other = freshId();
    const elsewhere = await Orders.append(other, [{ type: 'OrderPlaced', data: { customer: 'fi' } }], { idempotencyKey: 'place-1' });
    expect(elsewhere.version).toBe(1);
    expect(elsewhere.events[0]?.streamId).toBe(other.orderId);
  });

  test('10 parallel calls with one key append once and all return that result', async () => {
    for (const expectedVersion of [undefined, 0]) {
      const id = freshId();
      const results = await Promise.all(
        range(1, 10).map(() =>
          Orders.append(
            id,
            [
              { type: 'OrderPlaced', data: { customer: 'gus' } },
              { type: 'ItemAdded', data: { sku: 'k', price: 9 } },
            ],
            { idempotencyKey: 'same', ...(expectedVersion === undefined ? {} : { expectedVersion }) },
          ),
        ),
      );
      expect(await versionsOf(id)).toEqual([1, 2]);
      for (const result of results) expect(result).toEqual(results[0]);
      expect(results[0]?.version).toBe(2);
    }
  });

  test('execute with an idempotency key runs the command once', async () => {
    const id = freshId();
    await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'hal' } }]);
    const command = { initial: emptyOrder, evolve: evolveOrder, decide: () => [{ type: 'ItemAdded' as const, data: { sku: 'once', price: 7 } }] };
    const first = await Orders.execute<OrderState>(id, command, { idempotencyKey: 'cmd-1' });
    const second = await Orders.execute<OrderState>(id, command, { idempotencyKey: 'cmd-1' });
    expect(first.version).toBe(2);
    expect(second.version).toBe(2);
    expect(second.events).toEqual(first.events);
    expect(first.state).toEqual({ placed: true, shipped: false, items: 1, total: 7 });
    expect(second.state).toEqual(first.state); // the first append's events are folded in once
    expect(await versionsOf(id)).toEqual([1, 2]);

    // after the stream moved on, the retry still appends nothing and reports the state it loaded
    await Orders.append(id, [{ type: 'OrderShipped', data: {} }]);
    const third = await Orders.execute<OrderState>(id, command, { idempotencyKey: 'cmd-1' });
    expect(third.events).toEqual(first.events);
    expect(third.state).toEqual({ placed: true, shipped: true, items: 1, total: 7 });
    expect(third.version).toBe(3);
    expect(await versionsOf(id)).toEqual([1, 2, 3]);
  });
});

test('request failures leave as DynafoldError with the SDK error as cause', async () => {
  const missing = orderStream(client, 'no-such-table');
  const attempt = missing.append(freshId(), [{ type: 'OrderPlaced', data: { customer: 'x' } }], { expectedVersion: 0 });
  await expect(attempt).rejects.toBeInstanceOf(DynafoldError);
  await expect(attempt).rejects.toMatchObject({ code: 'dynamo.tableNotFound', cause: { name: 'ResourceNotFoundException' } });
  await expect(missing.read(freshId())).rejects.toMatchObject({ code: 'dynamo.tableNotFound' });
});
