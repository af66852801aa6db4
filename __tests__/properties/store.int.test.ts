import fc from 'fast-check';
import { z } from 'zod';
import {
  AppendContentionError,
  ConcurrencyError,
  EventStream,
  ReadModel,
  ValidationError,
  eventsTableDefinition,
  readModelTableDefinition,
} from 'dynafold';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { createTestTable, testClient } from '../support/dynamo';
import { emptyOrder, evolveOrder, orderStream, placeThenAddItem, type OrderState } from '../support/orders';
import { countRequests } from '../support/requests';
import { loseAnswers } from '../support/lost-answers';

// The store under concurrent writers (with and without expectedVersion, with repeated idempotency keys),
// with data JSON can't keep or DynamoDB can't hold, and with read-model keys holding "#"; writes lose their
// answers after DynamoDB applied them (the SDK sends them again) at a rate each case draws.
const client = testClient();
const requests = countRequests(client);
const answers = loseAnswers(client);
/** The share of writes whose answer is lost, and the seed of which: none, some or many. */
const lostAnswers = fc.record({ rate: fc.constantFrom(0, 0.15, 0.4), seed: fc.integer({ min: 1, max: 1_000_000 }) });
let table: string;
let viewsTable: string;
let cases = 0;

beforeAll(async () => {
  table = (await createTestTable(client, eventsTableDefinition, 'prop-store')).name;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [pairModel('Any', name)]), 'prop-store-views')).name;
});
afterAll(() => client.destroy());

const payload = z.object({ writer: z.number(), append: z.number(), event: z.number() });

interface Writer {
  /**
   * `head`: no expectedVersion; `read`: the version read just before; `stale`: one behind that (inside a
   * commit, at times); `own`: the version of its own last append (0 at first), which its stream remembers
   * ending a commit, so the append is not read first, however stale.
   */
  readonly mode: 'head' | 'read' | 'stale' | 'own';
  /** Which of two `EventStream`s of the same stream it writes through (two processes): each remembers what it saw. */
  readonly instance: 0 | 1;
  readonly appends: ReadonlyArray<{ readonly events: number; readonly key?: 'k1' | 'k2'; readonly repeats: number }>;
}

const writers = fc.array(
  fc.record({
    mode: fc.constantFrom('head' as const, 'read' as const, 'stale' as const, 'own' as const),
    instance: fc.constantFrom(0 as const, 1 as const),
    appends: fc.array(
      fc.record({
        events: fc.integer({ min: 1, max: 3 }),
        key: fc.option(fc.constantFrom('k1' as const, 'k2' as const), { nil: undefined }),
        repeats: fc.integer({ min: 1, max: 3 }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  { minLength: 2, maxLength: 6 },
);

test(
  'concurrent appends keep versions contiguous; each append is all or nothing, and once per idempotency key',
  async () => {
    await fc.assert(
      fc
        .asyncProperty(writers, fc.constantFrom('a', 'b'), lostAnswers, async (all: Writer[], id, lost) => {
          const name = `Concurrent${++cases}`;
          answers.loseAtRate(lost.rate, lost.seed);
          const instances = [0, 1].map(() => new EventStream({ client, table, name, streamId: ['id'], events: { Wrote: payload } }));
          const stream = instances[0] as (typeof instances)[0];
          type Result = { writer: number; append: number; outcome: 'appended' | 'conflict'; version?: number; events?: ReadonlyArray<unknown> };
          const results: Result[] = [];
          await Promise.all(
            all.map(async (writer, w) => {
              const through = instances[writer.instance] as (typeof instances)[0];
              let own = 0;
              for (const [a, append] of writer.appends.entries()) {
                // An idempotency key names one append: the writer's own key, repeated concurrently as retries would be.
                const idempotencyKey = append.key === undefined ? undefined : `${append.key}-${w}-${a}`;
                const events = Array.from({ length: append.events }, (_, e) => ({
                  type: 'Wrote' as const,
                  data: { writer: w, append: a, event: e },
                }));
                const expectedVersion =
                  writer.mode === 'head'
                    ? undefined
                    : writer.mode === 'own'
                      ? own
                      : Math.max(0, (await through.version({ id })) - (writer.mode === 'stale' ? 1 : 0));
                const attempts = await Promise.allSettled(
                  Array.from({ length: idempotencyKey === undefined ? 1 : append.repeats }, () =>
                    through.append({ id }, events, {
                      ...(expectedVersion === undefined ? {} : { expectedVersion }),
                      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
                    }),
                  ),
                );
                for (const attempt of attempts) {
                  // Its next append goes on from this one's result, or from the version the conflict reported.
                  if (attempt.status === 'fulfilled') own = attempt.value.version;
                  else if (attempt.reason instanceof ConcurrencyError) own = attempt.reason.actualVersion;
                  if (attempt.status === 'fulfilled')
                    results.push({ writer: w, append: a, outcome: 'appended', version: attempt.value.version, events: attempt.value.events });
                  else {
                    expect(attempt.reason instanceof ConcurrencyError || attempt.reason instanceof AppendContentionError).toBe(true);
                    results.push({ writer: w, append: a, outcome: 'conflict' });
                  }
                }
              }
            }),
          );
          const stored = await stream.read({ id });
          expect(stored.map((event) => event.version)).toEqual(stored.map((_, index) => index + 1));
          const appended = new Map<string, Result[]>();
          for (const result of results.filter((r) => r.outcome === 'appended'))
            appended.set(`${result.writer}/${result.append}`, [...(appended.get(`${result.writer}/${result.append}`) ?? []), result]);
          for (const [name, successes] of appended) {
            // Repeats with one idempotency key all answer the first result.
            for (const success of successes) expect(success).toEqual({ ...(successes[0] as Result) });
            const first = successes[0] as Result;
            const events = first.events as ReadonlyArray<{ version: number; data: unknown }>;
            for (const event of events) expect(stored[event.version - 1]).toEqual(event);
            expect({ name, stored: stored.filter((event) => `${event.data.writer}/${event.data.append}` === name).length }).toEqual({
              name,
              stored: events.length,
            });
          }
          // Nothing of an append that failed everywhere was written.
          for (const event of stored) expect(appended.has(`${event.data.writer}/${event.data.append}`)).toBe(true);
          answers.stop();
        })
        .afterEach(() => answers.stop()),
      propertySettings(25),
    );
  },
  propertyTimeout(25),
);

/** Data JSON can't keep, or DynamoDB can't hold as a map, among plain JSON. */
const data = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })) },
  { weight: 1, arbitrary: fc.record({ at: fc.date({ noInvalidDate: true }) }) },
  { weight: 1, arbitrary: fc.record({ n: fc.bigInt() }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constant(new Map([['a', 1]])), s: fc.constant(new Set([1])) }) },
  { weight: 1, arbitrary: fc.record({ n: fc.oneof(fc.double(), fc.constantFrom(2 ** 60, -(2 ** 60), 1e200, 1e-200, Number.NaN)) }) },
  { weight: 1, arbitrary: fc.record({ '': fc.integer() }) },
);

test(
  'whatever the data, an append either stores what a read gives back, or is refused with a ValidationError and writes nothing',
  async () => {
    await fc.assert(
      fc.asyncProperty(data, fc.boolean(), fc.boolean(), async (value, compressed, large) => {
        const stream = new EventStream({
          client,
          table,
          name: `Data${++cases}`,
          streamId: ['id'],
          events: { Held: z.record(z.string(), z.unknown()) },
          ...(compressed ? {} : { compression: false as const }),
        });
        const sent = large ? { ...value, padding: 'p'.repeat(5_000) } : value;
        requests.reset();
        let appended: Awaited<ReturnType<typeof stream.append>> | undefined;
        try {
          appended = await stream.append({ id: 'x' }, [{ type: 'Held', data: sent }]);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          expect(requests.count('TransactWriteItemsCommand')).toBe(0);
          await expect(stream.read({ id: 'x' })).resolves.toEqual([]);
          return;
        }
        const normalised = JSON.parse(JSON.stringify(sent)) as unknown;
        expect(appended.events[0]?.data).toEqual(normalised);
        expect((await stream.read({ id: 'x' }))[0]?.data).toEqual(normalised);
      }),
      propertySettings(60),
    );
  },
  propertyTimeout(60),
);

function pairModel(name: string, tableName = viewsTable) {
  return new ReadModel({
    client,
    table: tableName,
    name,
    schema: z.object({ p: z.string(), s: z.string(), n: z.number() }),
    key: { pk: { field: 'pk', composite: ['p'] }, sk: { field: 'sk', composite: ['s'] } },
    indexes: { byS: { name: 'gsi1', pk: { field: 'gsi1pk', composite: ['p'] }, sk: { field: 'gsi1sk', composite: ['s'] } } },
  });
}

test(
  'rows whose key values hold "#" are each found by get and by an exact query, never another row',
  async () => {
    const part = fc.stringMatching(/^[a#]{1,3}$/);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(part, part), { minLength: 1, maxLength: 6, selector: ([p, s]) => `${p}\u0000${s}` }), async (keys) => {
        const model = pairModel(`Hashes${++cases}`);
        await Promise.all(keys.map(([p, s], n) => model.put({ p, s, n })));
        for (const [n, [p, s]] of keys.entries()) {
          expect(await model.get({ p, s }, { consistent: true })).toMatchObject({ p, s, n });
          expect((await model.query('primary', { p, s }, { consistent: true })).items.map((row) => row.n)).toEqual([n]);
          expect((await model.query('byS', { p, s })).items.map((row) => row.n)).toEqual([n]);
          const inPartition = keys.filter(([other]) => other === p).length;
          expect((await model.query('primary', { p }, { consistent: true })).items).toHaveLength(inPartition);
        }
      }),
      propertySettings(40),
    );
  },
  propertyTimeout(40),
);

// Concurrent commands with snapshots: whatever the races, the command that appended last decided on a state
// that stood on a snapshot fewer than `every` events behind, or saved one (`LoadOptions.snapshot`), and a
// stored snapshot is the fold of the events up to it.
test(
  'after concurrent commands, the stored snapshot is at most `every` events behind the head, and is the fold up to it',
  async () => {
    await fc.assert(
      fc
        .asyncProperty(
          fc.integer({ min: 1, max: 10 }),
          fc.integer({ min: 1, max: 4 }),
          fc.boolean(),
          lostAnswers,
          async (commands, every, consistent, lost) => {
            const Orders = orderStream(client, table, { name: `Snap${++cases}` });
            const orderId = 'aa';
            const decider = placeThenAddItem(orderId);
            answers.loseAtRate(lost.rate, lost.seed);
            const executed = await Promise.all(
              Array.from({ length: commands }, () =>
                Orders.execute({ orderId }, decider, { snapshot: { every }, consistent, retry: { attempts: 30 } }).then(
                  () => 1,
                  (error: unknown) => {
                    if (!(error instanceof ConcurrencyError)) throw error;
                    return 0;
                  },
                ),
              ),
            );
            answers.stop();
            const version = await Orders.version({ orderId });
            // Each command that resolved appended its one event once, whatever answers were lost.
            expect(version).toBe(executed.reduce((sum: number, n) => sum + n, 0));
            const snapshot = await Orders.loadSnapshot<OrderState>({ orderId });
            expect(snapshot?.version ?? 0).toBeGreaterThanOrEqual(version - every);
            const events = await Orders.read({ orderId }, { toVersion: snapshot?.version ?? 0 });
            if (snapshot !== undefined) expect(snapshot.state).toEqual(events.reduce(evolveOrder, emptyOrder));
          },
        )
        .afterEach(() => answers.stop()),
      propertySettings(20),
    );
  },
  propertyTimeout(20),
);
