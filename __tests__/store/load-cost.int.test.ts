import { EventStreamDefaults, ValidationError, eventsTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { emptyOrder, evolveOrder, orderStream, range, type OrderState } from '../support/orders';
import { watchReplicas } from '../support/replicas';
import { countRequests } from '../support/requests';

// What a load costs: the Queries a read sends at a page boundary, and a command's eventually consistent
// load, whose staleness costs a conflict and never a wrong append.

const client = testClient();
const requests = countRequests(client);
let Orders: ReturnType<typeof orderStream>;

/** Every read request sent, in order; `replicas.lagQuery` makes eventually consistent Queries answer like a replica that is behind. */
const replicas = watchReplicas(client);
const reads = replicas.reads;

beforeAll(async () => {
  const { name } = await createTestTable(client, eventsTableDefinition, 'loadcost');
  Orders = orderStream(client, name);
});
afterAll(() => client.destroy());

let sequence = 0;
const freshId = () => ({ orderId: `l-${++sequence}-${Date.now().toString(36)}` });
const added = (sku: string) => ({ type: 'ItemAdded' as const, data: { sku, price: 1 } });
const addOne = { initial: emptyOrder, evolve: evolveOrder, decide: () => [added('next')] };

function reset(): void {
  requests.reset();
  reads.length = 0;
}

/** A stream of `count` events, appended `perAppend` at a time (each append is one commit, one item). */
async function streamOf(count: number, perAppend = 1): Promise<{ orderId: string }> {
  const id = freshId();
  for (let from = 1; from <= count;) {
    const events = range(from, Math.min(count, from + perAppend - 1)).map((n) => added(`s-${n}`));
    await Orders.append(id, events, { expectedVersion: from - 1 });
    from += events.length;
  }
  return id;
}

describe('a read at a page boundary', () => {
  test(`a stream of exactly one page (${EventStreamDefaults.readPageSize} commits) is read in one Query, one more commit in two`, async () => {
    const id = await streamOf(EventStreamDefaults.readPageSize);
    reset();
    const events = await Orders.read(id);
    expect(events.map((event) => event.version)).toEqual(range(1, EventStreamDefaults.readPageSize));
    expect(requests.count('QueryCommand')).toBe(1);

    reset();
    expect(await Orders.read(id, { toVersion: EventStreamDefaults.readPageSize })).toHaveLength(EventStreamDefaults.readPageSize);
    expect(requests.count('QueryCommand')).toBe(1);

    reset();
    const { version } = await Orders.execute<OrderState>(id, addOne, { consistent: true });
    expect(version).toBe(EventStreamDefaults.readPageSize + 1);
    expect(requests.count('QueryCommand')).toBe(1);

    reset();
    const longer = await Orders.read(id);
    expect(longer.map((event) => event.version)).toEqual(range(1, EventStreamDefaults.readPageSize + 1));
    expect(requests.count('QueryCommand')).toBe(2);
  }, 120_000);

  test('an empty stream and an empty range cost at most one Query', async () => {
    const id = freshId();
    reset();
    expect(await Orders.read(id)).toEqual([]);
    expect(requests.count('QueryCommand')).toBe(1);
    reset();
    expect(await Orders.read(id, { fromVersion: 0, toVersion: 0 })).toEqual([]);
    expect(requests.count('QueryCommand')).toBe(0);
  });
});

describe("a command's eventually consistent load", () => {
  afterEach(() => {
    replicas.lagQuery = undefined;
  });

  test("by default a command's load is eventually consistent; with consistent: true it is not", async () => {
    const id = await streamOf(3);
    await Orders.saveSnapshot(id, { version: 2, state: { placed: false, shipped: false, items: 2, total: 2 } });
    reset();
    await Orders.execute<OrderState>(id, { ...addOne, initial: emptyOrder }, { snapshot: {} });
    // The snapshot and the events after it come in one Query.
    expect(reads).toEqual([{ command: 'QueryCommand', consistent: false }]);
    reset();
    const result = await Orders.execute<OrderState>(id, addOne, { consistent: true, snapshot: {} });
    expect(result.version).toBe(5);
    expect(result.state.items).toBe(5);
    expect(reads).toEqual([{ command: 'QueryCommand', consistent: true }]);
    // Reads outside a command stay strongly consistent.
    reset();
    await Orders.read(id);
    await Orders.load(id, { initial: emptyOrder, evolve: evolveOrder });
    expect(reads.every((read) => read.consistent)).toBe(true);
  });

  test('a load reads eventually consistent only when asked to, and `consistent` must be a boolean', async () => {
    const id = await streamOf(3);
    await Orders.saveSnapshot(id, { version: 2, state: { placed: false, shipped: false, items: 2, total: 2 } });
    const fold = { initial: emptyOrder, evolve: evolveOrder };
    reset();
    const strong = await Orders.load(id, fold, { snapshot: {} });
    expect(reads).toEqual([{ command: 'QueryCommand', consistent: true }]);
    reset();
    expect(await Orders.load(id, fold, { snapshot: {}, consistent: false })).toEqual(strong);
    expect(reads).toEqual([{ command: 'QueryCommand', consistent: false }]);
    const notBoolean = { consistent: 'no' } as unknown as { consistent: boolean };
    await expect(Orders.load(id, fold, notBoolean)).rejects.toThrow(/`consistent` to be a boolean/);
  });

  test('a stale load costs a lost race, decided again on the event that won, and appends nothing wrong', async () => {
    const id = await streamOf(3);
    replicas.lagQuery = (items) => items.slice(0, -1); // the replica has not seen version 3 yet
    reset();
    const result = await Orders.execute<OrderState>(id, addOne, { consistent: false });
    expect(result.version).toBe(4);
    expect(result.state.items).toBe(4);
    expect(Object.fromEntries(requests.counts)).toEqual({ QueryCommand: 1, PutItemCommand: 2 });
    expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2, 3, 4]);
  });

  test('the first try again, on the commit that won, goes at once: no read and no wait, whatever the backoff', async () => {
    const id = await streamOf(3);
    replicas.lagQuery = (items) => items.slice(0, -1); // the replica has not seen version 3 yet
    reset();
    const started = Date.now();
    // A wait of this backoff would take 4 to 8 s.
    const result = await Orders.execute<OrderState>(id, addOne, { consistent: false, retry: { backoff: { initialMs: 8_000, maxMs: 8_000 } } });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result.version).toBe(4);
    expect(Object.fromEntries(requests.counts)).toEqual({ QueryCommand: 1, PutItemCommand: 2 });
  }, 20_000);

  test('a load that saw a gap is read again, strongly consistent, before anything is decided', async () => {
    const id = await streamOf(4);
    replicas.lagQuery = (items) => items.filter((_item, index) => index !== 1); // version 2 missing
    reset();
    let decidedOn: number | undefined;
    const result = await Orders.execute<OrderState>(
      id,
      {
        initial: emptyOrder,
        evolve: evolveOrder,
        decide: (state) => {
          decidedOn = state.items;
          return [added('next')];
        },
      },
      { consistent: false },
    );
    expect(decidedOn).toBe(4);
    expect(result.version).toBe(5);
    expect(reads).toEqual([
      { command: 'QueryCommand', consistent: false },
      { command: 'QueryCommand', consistent: true },
    ]);
  });

  test('consistent that is not a boolean fails with ValidationError naming it', async () => {
    const attempt = Orders.execute<OrderState>(freshId(), addOne, { consistent: 'no' as unknown as boolean });
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    await expect(attempt).rejects.toThrow(/`consistent`/);
  });
});
