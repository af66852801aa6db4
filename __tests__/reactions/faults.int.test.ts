/**
 * A reaction's effects under faults: every write's answer lost, a client that gives up after a lost answer
 * (a crash between the effects' transaction and its result), a rival append to the target between the
 * plan and the write, a handler that throws until it is fixed (parked, then retried days later).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { eventsTableDefinition, type ParkedRow } from 'dynafold';
import { Reaction, command, reactionsTableDefinition } from 'dynafold/reactions';
import { quickRetries } from '../../chaos/faults';
import { createTestTable, localConfig, testClient } from '../support/dynamo';
import { loseAnswers } from '../support/lost-answers';
import { reservations, reserve, shopOrders, stockStream, type ShopOrderEvent } from '../support/shop';

const client = testClient();
const answers = loseAnswers(client);
// A client whose SDK tries a request twice: after a lost answer and a throttled retry, it gives up.
const brief = new DynamoDBClient({ ...localConfig(), retryStrategy: quickRetries(2, 5) });
const briefAnswers = loseAnswers(brief);
let eventsTable: string;
let reactionsTable: string;
let runs = 0;

beforeAll(async () => {
  eventsTable = (await createTestTable(client, eventsTableDefinition, 'reaction-fault-events')).name;
  reactionsTable = (await createTestTable(client, reactionsTableDefinition, 'reaction-faults')).name;
});
afterEach(() => {
  answers.stop();
  briefAnswers.stop();
});
afterAll(() => {
  client.destroy();
  brief.destroy();
});

function shop(options: { client?: DynamoDBClient; poisoned?: (event: ShopOrderEvent) => boolean; park?: number } = {}) {
  const run = ++runs;
  const on = options.client ?? client;
  const orders = shopOrders(on, eventsTable, `FOrder${run}`);
  const stock = stockStream(on, eventsTable, `FStock${run}`);
  const reaction = new Reaction({
    name: `faults-${run}`,
    streams: [orders],
    client: on,
    table: reactionsTable,
    react: (event) => {
      if (options.poisoned?.(event) === true) throw new Error(`poisoned ${event.version}`);
      return event.type === 'OrderPlaced' || event.type === 'ItemAdded'
        ? command(stock, { sku: event.data.sku }, reserve(event.streamId, event.version, event.data.quantity))
        : undefined;
    },
    ...(options.park === undefined ? {} : { poison: { park: { afterAttempts: options.park } } }),
  });
  return { orders, stock, reaction };
}

async function place(orders: ReturnType<typeof shopOrders>, orderId: string, items: number): Promise<ShopOrderEvent[]> {
  const { events } = await orders.append({ orderId }, [
    { type: 'OrderPlaced', data: { sku: 'pen', quantity: 1 } },
    ...Array.from({ length: items }, (_unused, n) => ({ type: 'ItemAdded' as const, data: { sku: n % 2 === 0 ? 'ink' : 'pen', quantity: n + 1 } })),
  ]);
  return [...events];
}

const ids = (events: ReadonlyArray<ShopOrderEvent>) =>
  events.filter((event) => event.type !== 'OrderCancelled').map((e) => `${e.streamId}@${e.version}`);

test("every write's answer lost: each event's effects written once, each in one call's applied", async () => {
  const { orders, stock, reaction } = shop();
  const events = [...(await place(orders, 'lost-1', 3)), ...(await place(orders, 'lost-2', 2))];
  answers.loseAtRate(0.5, 7);
  const first = await reaction.applyBatch(events);
  expect(answers.lost.length).toBeGreaterThan(0);
  const second = await reaction.applyBatch(events);
  answers.stop();
  expect(first.outcomes.every((outcome) => outcome.status === 'applied')).toBe(true);
  const applied = [...first.outcomes, ...second.outcomes].flatMap((outcome) => outcome.applied.map((e) => `${e.streamId}@${e.version}`));
  expect(applied.sort()).toEqual(ids(events).sort());
  expect([...(await reservations(stock, 'pen')), ...(await reservations(stock, 'ink'))].sort()).toEqual(ids(events).sort());
});

test('a client that gives up after a lost answer (the call fails as a crash would): delivered again, nothing is doubled', async () => {
  const { orders, stock, reaction } = shop({ client: brief });
  const events = await place(orders, 'crash-1', 2);
  briefAnswers.loseNext({ operation: 'TransactWriteItems', throttleRetries: 1 });
  const first = await reaction.applyBatch(events);
  // The transaction went through; whether the call knew it or not, a redelivery finds the effects written.
  expect(briefAnswers.lost).toHaveLength(1);
  const second = await reaction.applyBatch(events);
  const applied = [...first.outcomes, ...second.outcomes].flatMap((outcome) => outcome.applied.map((e) => `${e.streamId}@${e.version}`));
  expect(applied.sort()).toEqual(ids(events).sort());
  expect([...(await reservations(stock, 'pen')), ...(await reservations(stock, 'ink'))].sort()).toEqual(ids(events).sort());
});

test("a rival append to the target between the plan and the write: the command decides again, on the rival's events", async () => {
  const { orders, stock, reaction } = shop();
  const events = await place(orders, 'rival-1', 0);
  let rivals = 0;
  const rival = async () => {
    rivals++;
    await stock.append({ sku: 'pen' }, [{ type: 'Restocked', data: { quantity: 5 } }]);
  };
  // Before the first transaction is sent, another writer takes the stock's next version.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (/^TransactWrite(Items)?Command$/.test(context.commandName ?? '') && rivals === 0) await rival();
      return next(args);
    },
    { step: 'initialize', name: 'rival-append' },
  );
  try {
    const { outcomes, stats } = await reaction.applyBatch(events);
    expect(outcomes[0]?.status).toBe('applied');
    expect(stats.lostRaces).toBe(1);
  } finally {
    client.middlewareStack.remove('rival-append');
  }
  const stocked = await stock.read({ sku: 'pen' });
  expect(stocked.map((event) => event.type)).toEqual(['Restocked', 'Reserved']);
});

test('a handler that throws parks its source instance; once fixed, retryParked writes the effects once, days later', async () => {
  const fault = { fixed: false };
  const { orders, stock, reaction } = shop({ poisoned: (event) => !fault.fixed && event.version === 2, park: 2 });
  const events = await place(orders, 'park-1', 2);
  const first = await reaction.applyBatch(events);
  expect(first.outcomes[0]).toMatchObject({ status: 'failed', applied: [events[0]] });
  const second = await reaction.applyBatch(events);
  expect(second.outcomes[0]?.status).toBe('parked');
  // Parked, the instance takes later events aside: the shard moves on.
  const later = await orders.append({ orderId: 'park-1' }, [{ type: 'ItemAdded', data: { sku: 'pen', quantity: 9 } }]);
  expect((await reaction.applyBatch(later.events)).outcomes[0]?.status).toBe('parked');
  const parked: ParkedRow[] = [];
  for await (const row of reaction.parkedRows()) parked.push(row);
  expect(parked.map((row) => row.key)).toEqual([{ source: `${orders.name}#park-1` }]);
  expect(await reservations(stock, 'pen')).toEqual(['park-1@1']);
  fault.fixed = true;
  const replayed = await reaction.retryParked({ source: `${orders.name}#park-1` });
  expect(replayed[0]?.applied.map((event) => event.version)).toEqual([2, 3, 4]);
  expect(await reaction.retryParked({ source: `${orders.name}#park-1` })).toEqual([]);
  const all = [...events, ...later.events];
  expect([...(await reservations(stock, 'pen')), ...(await reservations(stock, 'ink'))].sort()).toEqual(ids(all).sort());
});

test('skipParked passes over the failing event without its effects, and reacts to the rest', async () => {
  const { orders, stock, reaction } = shop({ poisoned: (event) => event.version === 2, park: 1 });
  const events = await place(orders, 'skip-1', 2);
  expect((await reaction.applyBatch(events)).outcomes[0]?.status).toBe('parked');
  const skipped = await reaction.skipParked({ source: `${orders.name}#skip-1` });
  expect(skipped?.applied.map((event) => event.version)).toEqual([3]);
  expect([...(await reservations(stock, 'pen')), ...(await reservations(stock, 'ink'))].sort()).toEqual(['skip-1@1', 'skip-1@3']);
});
