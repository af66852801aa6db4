import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConcurrencyError, eventsTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { emptyOrder, evolveOrder, orderStream, range, type OrderState } from '../support/orders';
import { watchReplicas, type Replicas } from '../support/replicas';
import { countRequests } from '../support/requests';

// What each append and command sends: a conditional PutItem where the predecessor is known to exist,
// a transaction where it is not, and a lost race decided from the item that won.

const client = testClient();
const requests = countRequests(client);
/** A second client, so a competitor's requests are not counted with the writer's. */
const rival = testClient();
let Orders: ReturnType<typeof orderStream>;
let RivalOrders: ReturnType<typeof orderStream>;
/** The writer's table through a stream that has seen none of its appends (another process's, say), on the counted client. */
let Elsewhere: ReturnType<typeof orderStream>;

beforeAll(async () => {
  const { name } = await createTestTable(client, eventsTableDefinition, 'appendcost');
  Orders = orderStream(client, name);
  RivalOrders = orderStream(rival, name);
  Elsewhere = orderStream(client, name, { rememberedVersions: 0 });
});
afterAll(() => {
  client.destroy();
  rival.destroy();
});

let sequence = 0;
const freshId = () => ({ orderId: `c-${++sequence}-${Date.now().toString(36)}` });
const added = (sku: string) => ({ type: 'ItemAdded' as const, data: { sku, price: 1 } });
const order = { initial: emptyOrder, evolve: evolveOrder };
const addOne = (sku: string) => ({ ...order, decide: () => [added(sku)] });

/** Runs `hook` before each of the next `times` requests named `command` that `client` sends. */
function before(target: DynamoDBClient, command: string, hook: () => Promise<void>, times = 1): void {
  let left = times;
  target.middlewareStack.add(
    (next, context) => async (args) => {
      if (left > 0 && context.commandName === command) {
        left--;
        await hook();
      }
      return next(args);
    },
    { step: 'initialize', name: `before-${Math.random().toString(36).slice(2)}` },
  );
}

/** Whether each Query among `replicas`' reads asked for strong consistency, in order. */
function queryConsistency(replicas: Replicas): boolean[] {
  return replicas.reads.filter((read) => read.command === 'QueryCommand').map((read) => read.consistent);
}

function sent(): Record<string, number> {
  return Object.fromEntries(requests.counts);
}

describe('which request an append is', () => {
  test('one event at version 1 is one conditional PutItem', async () => {
    const id = freshId();
    requests.reset();
    await Orders.append(id, [added('a')], { expectedVersion: 0 });
    expect(sent()).toEqual({ PutItemCommand: 1 });
  });

  test('one event at the head is a Query and a PutItem; at a caller-supplied version > 0, a Query of the commit holding it and a PutItem', async () => {
    const id = freshId();
    await Orders.append(id, [added('a')]);
    requests.reset();
    await Orders.append(id, [added('b')]);
    expect(sent()).toEqual({ QueryCommand: 1, PutItemCommand: 1 });
    requests.reset();
    // A caller's number the stream has not seen end a commit is no proof that one ends at version 2: the
    // commit holding it is read first (an eventually consistent Query of one item, half a read unit, where
    // a transaction with a ConditionCheck billed 4 write units).
    const replicas = watchReplicas(client);
    try {
      await Elsewhere.append(id, [added('c')], { expectedVersion: 2 });
      expect(sent()).toEqual({ QueryCommand: 1, PutItemCommand: 1 });
      expect(queryConsistency(replicas)).toEqual([false]);
      // A version that is not there yet is a ConcurrencyError, with nothing written: the eventually
      // consistent read that misses it is not the last word, a strongly consistent one is.
      requests.reset();
      replicas.reads.length = 0;
      const ahead = Elsewhere.append(id, [added('x')], { expectedVersion: 7 });
      await expect(ahead).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(ahead).rejects.toMatchObject({ expectedVersion: 7, actualVersion: 3 });
      // The two proof reads, then the head the error reports.
      expect(queryConsistency(replicas)).toEqual([false, true, true]);
      expect(requests.count('PutItemCommand') + requests.count('TransactWriteItemsCommand')).toBe(0);
      expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2, 3]);
    } finally {
      replicas.remove();
    }
  });

  test('an eventually consistent read that lags behind the expected version is checked strongly consistent, and the append lands', async () => {
    const id = freshId();
    await Orders.append(id, [added('a'), added('b')], { expectedVersion: 0 });
    // A replica that has not seen the commit of versions 1 and 2 yet: the real answer to an eventually
    // consistent Query, without its item.
    const replicas = watchReplicas(client);
    replicas.lagQuery = () => [];
    try {
      const appended = await Elsewhere.append(id, [added('c')], { expectedVersion: 2 });
      expect(appended.version).toBe(3);
      expect(queryConsistency(replicas)).toEqual([false, true]);
      expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2, 3]);
    } finally {
      replicas.remove();
    }
  });

  test('several events are one PutItem of their commit; an idempotency key keeps the transaction', async () => {
    const id = freshId();
    requests.reset();
    await Orders.append(id, [added('a'), added('b')], { expectedVersion: 0 });
    expect(sent()).toEqual({ PutItemCommand: 1 });
    requests.reset();
    await Orders.append(id, [added('c'), added('d')], { idempotencyKey: 'k-1' });
    expect(sent()).toEqual({ QueryCommand: 1, TransactWriteItemsCommand: 1 });
  });

  test('with itemPerEvent, several events are a transaction of an item each, as 0.3 wrote them; a non-boolean is refused', async () => {
    const PerEvent = orderStream(client, Orders.table, { itemPerEvent: true });
    const id = freshId();
    requests.reset();
    await PerEvent.append(id, [added('a'), added('b'), added('c')], { expectedVersion: 0 });
    expect(sent()).toEqual({ TransactWriteItemsCommand: 1 });
    requests.reset();
    await orderStream(client, Orders.table, { itemPerEvent: true, rememberedVersions: 0 }).append(id, [added('d')], { expectedVersion: 3 });
    // A version of its own holds each event, so every one of them ends a commit.
    expect(sent()).toEqual({ QueryCommand: 1, PutItemCommand: 1 });
    expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2, 3, 4]);
    expect(() => orderStream(client, Orders.table, { itemPerEvent: 'yes' as unknown as boolean })).toThrow(/`itemPerEvent` to be a boolean/);
  });

  test('a writer going on from its own last result appends with one PutItem, one event or five', async () => {
    const id = freshId();
    let version = 0;
    requests.reset();
    for (const count of [1, 5, 1, 5]) {
      version = (
        await Orders.append(
          id,
          range(1, count).map((n) => added(`${version}-${n}`)),
          { expectedVersion: version },
        )
      ).version;
    }
    expect(version).toBe(12);
    expect(sent()).toEqual({ PutItemCommand: 4 });
    expect((await Orders.read(id)).map((event) => event.version)).toEqual(range(1, 12));
  });

  test('the version a load, a read of the head or a ConcurrencyError saw needs no proof read either', async () => {
    const id = freshId();
    await RivalOrders.append(id, [added('a'), added('b'), added('c')], { expectedVersion: 0 });
    // A load (eventually consistent, through a snapshot page or not) ends on the head's commit.
    for (const options of [{ consistent: false }, { snapshot: { name: 'cost' } }]) {
      const Loader = orderStream(client, Orders.table);
      const { version } = await Loader.load(id, order, options);
      requests.reset();
      await Loader.append(id, [added(`after-${version}`)], { expectedVersion: version });
      expect(sent()).toEqual({ PutItemCommand: 1 });
    }
    const Reader = orderStream(client, Orders.table);
    const head = await Reader.version(id);
    requests.reset();
    await Reader.append(id, [added('after-version')], { expectedVersion: head });
    expect(sent()).toEqual({ PutItemCommand: 1 });
    // A stale version: the error reads the head, which the retry goes on from without another proof read.
    await RivalOrders.append(id, [added('rival')]);
    const stale = Reader.append(id, [added('stale')], { expectedVersion: head + 1 });
    await expect(stale).rejects.toMatchObject({ expectedVersion: head + 1, actualVersion: head + 2 });
    requests.reset();
    await Reader.append(id, [added('retried')], { expectedVersion: head + 2 });
    expect(sent()).toEqual({ PutItemCommand: 1 });
    expect((await Orders.read(id)).map((event) => event.version)).toEqual(range(1, head + 3));
  });

  test('a remembered version proves nothing for another instance, another version or past its capacity', async () => {
    const Small = orderStream(client, Orders.table, { rememberedVersions: 2 });
    const [a, b, c] = [freshId(), freshId(), freshId()];
    for (const id of [a, b, c]) await Small.append(id, [added('x'), added('y')], { expectedVersion: 0 });
    // c and b are remembered; a, the least recently used of three, is not.
    requests.reset();
    await Small.append(c, [added('z')], { expectedVersion: 2 });
    await Small.append(b, [added('z')], { expectedVersion: 2 });
    expect(sent()).toEqual({ PutItemCommand: 2 });
    requests.reset();
    await Small.append(a, [added('z')], { expectedVersion: 2 });
    expect(sent()).toEqual({ QueryCommand: 1, PutItemCommand: 1 });
    // Version 1 is inside b's first commit: what the stream remembers of b (its end, 3) does not vouch for it.
    requests.reset();
    await expect(Small.append(b, [added('w')], { expectedVersion: 1 })).rejects.toMatchObject({ expectedVersion: 1, actualVersion: 3 });
    expect(requests.count('PutItemCommand') + requests.count('TransactWriteItemsCommand')).toBe(0);
    expect(() => orderStream(client, Orders.table, { rememberedVersions: -1 })).toThrow(/`rememberedVersions` to be an integer of at least 0/);
    expect(() => orderStream(client, Orders.table, { rememberedVersions: 1.5 })).toThrow(/`rememberedVersions`/);
  });

  test('a caller-supplied version inside a commit is a ConcurrencyError, with nothing written', async () => {
    const id = freshId();
    await Orders.append(id, [added('a'), added('b'), added('c')], { expectedVersion: 0 });
    for (const expectedVersion of [1, 2]) {
      requests.reset();
      const inside = Orders.append(id, [added('x')], { expectedVersion });
      await expect(inside).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(inside).rejects.toMatchObject({ expectedVersion, actualVersion: 3 });
      expect(requests.count('PutItemCommand') + requests.count('TransactWriteItemsCommand')).toBe(0);
    }
    expect((await Orders.append(id, [added('d')], { expectedVersion: 3 })).version).toBe(4);
    expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2, 3, 4]);
  });

  test('a command on an existing stream is its load (one Query) and one PutItem', async () => {
    const id = freshId();
    await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'ada' } }], { expectedVersion: 0 });
    requests.reset();
    const result = await Orders.execute<OrderState>(id, addOne('a'));
    expect(result.version).toBe(2);
    expect(sent()).toEqual({ QueryCommand: 1, PutItemCommand: 1 });
    requests.reset();
    await Orders.execute<OrderState>(id, { ...order, decide: () => [added('b'), added('c')] });
    expect(sent()).toEqual({ QueryCommand: 1, PutItemCommand: 1 });
  });

  test("no transaction has a ConditionCheck: after a command's load, at the head, or at a caller-supplied version (read first)", async () => {
    const shapes: string[][] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { TransactItems?: ReadonlyArray<Record<string, unknown>> };
        if (context.commandName === 'TransactWriteItemsCommand') shapes.push((input.TransactItems ?? []).map((item) => Object.keys(item)[0] ?? ''));
        return next(args);
      },
      { step: 'initialize', name: 'transaction-shapes' },
    );
    try {
      const id = freshId();
      await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'cy' } }], { expectedVersion: 0 });
      await Orders.execute<OrderState>(id, { ...order, decide: () => [added('a'), added('b')] }, { idempotencyKey: 'k-1' });
      await Orders.append(id, [added('c'), added('d')], { idempotencyKey: 'k-2' });
      await Orders.append(id, [added('e'), added('f')], { expectedVersion: 5, idempotencyKey: 'k-3' });
      // The commit and the idempotency sentinel.
      expect(shapes).toEqual([
        ['Put', 'Put'],
        ['Put', 'Put'],
        ['Put', 'Put'],
      ]);
      expect((await Orders.read(id)).map((event) => event.version)).toEqual(range(1, 7));
    } finally {
      client.middlewareStack.remove('transaction-shapes');
    }
  });

  test('a command that loses a race decides again on the event that won, without reading the stream again', async () => {
    const id = freshId();
    await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'bo' } }], { expectedVersion: 0 });
    before(client, 'PutItemCommand', async () => {
      await RivalOrders.append(id, [added('rival')], { expectedVersion: 1 });
    });
    requests.reset();
    const result = await Orders.execute<OrderState>(id, addOne('mine'));
    expect(sent()).toEqual({ QueryCommand: 1, PutItemCommand: 2 });
    expect(result.version).toBe(3);
    expect(result.state).toEqual({ placed: true, shipped: false, items: 2, total: 2 });
    const events = await Orders.read(id);
    expect(events.map((event) => (event.type === 'ItemAdded' ? event.data.sku : event.type))).toEqual(['OrderPlaced', 'rival', 'mine']);
  });

  test('a head append that loses a race goes on at the next version without reading the head again', async () => {
    const id = freshId();
    await Orders.append(id, [added('a')], { expectedVersion: 0 });
    before(client, 'PutItemCommand', async () => {
      await RivalOrders.append(id, [added('rival')], { expectedVersion: 1 });
    });
    requests.reset();
    const result = await Orders.append(id, [added('mine')]);
    expect(result.version).toBe(3);
    expect(sent()).toEqual({ QueryCommand: 1, PutItemCommand: 2 });
    expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2, 3]);
  });
});

describe('a head that moves faster than a version a try', () => {
  // Before each of the writer's first two Puts a rival appends three events: going on one version after
  // each winner would trail the head for ever, so a second lost race reads where the head is.
  const rivalAppendsThree = (id: { orderId: string }) => async () => {
    await RivalOrders.append(id, [added('r'), added('r'), added('r')]);
  };

  test('a head append that lost twice reads the head and lands on its third try', async () => {
    const id = freshId();
    await Orders.append(id, [added('a')], { expectedVersion: 0 });
    before(client, 'PutItemCommand', rivalAppendsThree(id), 2);
    requests.reset();
    const result = await Orders.append(id, [added('mine')], { retry: { attempts: 3 } });
    expect(result.version).toBe(8);
    expect(sent()).toEqual({ QueryCommand: 2, PutItemCommand: 3 });
    expect((await Orders.read(id)).map((event) => event.version)).toEqual(range(1, 8));
  });

  test('a command that lost twice reads the events after the winner and lands on its third try', async () => {
    const id = freshId();
    await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'cy' } }], { expectedVersion: 0 });
    before(client, 'PutItemCommand', rivalAppendsThree(id), 2);
    requests.reset();
    const result = await Orders.execute<OrderState>(id, addOne('mine'), { retry: { attempts: 3 } });
    expect(result.version).toBe(8);
    expect(result.state.items).toBe(7);
    expect(sent()).toEqual({ QueryCommand: 2, PutItemCommand: 3 });
  });
});

describe('races on one stream', () => {
  test('version 1: of 10 appends at expectedVersion 0 one wins, the others get ConcurrencyError at version 1', async () => {
    const id = freshId();
    const outcomes = await Promise.allSettled(range(1, 10).map((n) => Orders.append(id, [added(`v1-${n}`)], { expectedVersion: 0 })));
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        expect(outcome.reason).toBeInstanceOf(ConcurrencyError);
        expect(outcome.reason).toMatchObject({ expectedVersion: 0, actualVersion: 1 });
      }
    }
    expect((await Orders.read(id)).map((event) => event.version)).toEqual([1]);
  });

  test('commands, head appends and version-1 appends at once: contiguous versions, every event once', async () => {
    const id = freshId();
    const writers = [
      ...range(1, 12).map((n) => Orders.execute<OrderState>(id, addOne(`x-${n}`), { retry: { attempts: 500 } }).then(() => `x-${n}`)),
      ...range(1, 6).map((n) => Orders.append(id, [added(`h-${n}`)], { retry: { maxElapsedMs: 120_000 } }).then(() => `h-${n}`)),
      ...range(1, 3).map((n) =>
        Orders.append(id, [added(`z-${n}`)], { expectedVersion: 0 }).then(
          () => `z-${n}`,
          (error: unknown) => {
            expect(error).toBeInstanceOf(ConcurrencyError);
            return undefined;
          },
        ),
      ),
    ];
    const landed = (await Promise.all(writers)).filter((sku): sku is string => sku !== undefined);
    const events = await Orders.read(id);
    expect(events.map((event) => event.version)).toEqual(range(1, landed.length));
    expect(events.map((event) => (event.type === 'ItemAdded' ? event.data.sku : '')).sort()).toEqual([...landed].sort());
  }, 180_000);
});
