/**
 * One row that lanes race on: what a lane reads and writes when its batch is ahead of the row, and when it
 * loses the race to a lane further on. Requests are counted on real clients; the other lane's writes are
 * made, through its own client, just before this lane's write reaches DynamoDB.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';
import { countRequests } from '../support/requests';

const client = testClient();
const EVENTS = 30;
let stream: ReturnType<typeof orderStream>;
let viewsTable: string;
let eventsTable: string;
let truth: OrderEvent[];

afterAll(() => client.destroy());

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'hot-events');
  eventsTable = events.name;
  stream = orderStream(client, eventsTable);
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'hot-views')).name;
  await stream.append({ orderId: 'hot' }, [{ type: 'OrderPlaced', data: { customer: 'c' } }], { expectedVersion: 0 });
  // One event per append, so each item a Query returns is one event: the counts below are of events read.
  for (let index = 0; index < EVENTS - 1; index++) {
    await stream.append({ orderId: 'hot' }, [{ type: 'ItemAdded', data: { sku: `s-${index}`, price: index } }], { expectedVersion: index + 1 });
  }
  truth = await stream.read({ orderId: 'hot' });
});

/** Events of the stream read by Query through `lane`, summed. */
function countItemsRead(lane: DynamoDBClient): { items: number } {
  const counter = { items: 0 };
  lane.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'QueryCommand') counter.items += ((result.output as { Items?: unknown[] }).Items ?? []).length;
      return result;
    },
    { step: 'initialize', name: 'countItemsRead' },
  );
  return counter;
}

const versions = (from: number, to: number) => truth.slice(from - 1, to);

/** The row of the model named `name` is the fold of `events`, its times aside. */
async function expectFolded(name: string, events: ReadonlyArray<OrderEvent>): Promise<void> {
  const row = await orderSummaries(client, viewsTable, name).get({ orderId: 'hot' }, { consistent: true });
  expect({ ...row, createdAt: undefined, updatedAt: undefined }).toEqual({
    ...foldSummary('hot', events),
    createdAt: undefined,
    updatedAt: undefined,
  });
}

test('a lane whose batch is ahead of the row reads only the versions between the row and its batch', async () => {
  const lane = testClient();
  try {
    const read = countItemsRead(lane);
    await orderSummaryProjection(stream, orderSummaries(client, viewsTable, 'HotAhead')).applyBatch(versions(1, 5));
    const ahead = orderSummaryProjection(orderStream(lane, eventsTable), orderSummaries(lane, viewsTable, 'HotAhead'));

    await expect(ahead.applyBatch(versions(21, 30))).resolves.toMatchObject({ stats: { gapReads: 1 } });

    expect(read.items).toBe(15); // versions 6 to 20: the batch's own 21 to 30 are not read again
    await expectFolded('HotAhead', truth);
  } finally {
    lane.destroy();
  }
});

test('a race lost to a lane further on costs a read of the row: no gap read again, no write once the winner is past the batch', async () => {
  const lane = testClient();
  try {
    const other = orderSummaryProjection(stream, orderSummaries(client, viewsTable, 'HotRace'));
    // The other lane gets further before each of this lane's writes: to 8, then 16, then past this batch.
    const ahead = [versions(1, 8), versions(9, 16), versions(17, 30)];
    lane.middlewareStack.add(
      (next, context) => async (args) => {
        const batch = context.commandName === 'PutItemCommand' ? ahead.shift() : undefined;
        if (batch !== undefined) await other.applyBatch(batch);
        return next(args);
      },
      { step: 'initialize', name: 'otherLaneWritesFirst' },
    );
    const requests = countRequests(lane);
    const read = countItemsRead(lane);
    // Fewer tries than races lost: races lost to a row that moves on do not use them up.
    const behind = orderSummaryProjection(orderStream(lane, eventsTable), orderSummaries(lane, viewsTable, 'HotRace'), { attempts: 2 });

    const result = await behind.applyBatch(versions(21, 25));

    expect(result.outcomes).toEqual([
      expect.objectContaining({
        status: 'applied',
        applied: [],
        alreadyApplied: versions(21, 25).map((event) => expect.objectContaining({ version: event.version })),
      }),
    ]);
    expect(result.stats).toMatchObject({ gapReads: 1, lostRaces: 3, rowsWritten: 0 });
    expect(requests.count('QueryCommand')).toBe(1);
    expect(read.items).toBe(20);
    expect(requests.count('GetItemCommand')).toBe(4); // the first read, and one after each lost race
    expect(requests.count('PutItemCommand')).toBe(3); // every one lost
    const row = await orderSummaries(client, viewsTable, 'HotRace').get({ orderId: 'hot' }, { consistent: true });
    expect(row?.version).toBe(EVENTS);
  } finally {
    lane.destroy();
  }
});

// Lanes of one process (one projection object) take turns on a row: see `RowTurns`.
test('batches of one row applied at once by one process are written in turn: one row read, no gap read, no lost race', async () => {
  const lane = testClient();
  try {
    const requests = countRequests(lane);
    const read = countItemsRead(lane);
    const projection = orderSummaryProjection(orderStream(lane, eventsTable), orderSummaries(lane, viewsTable, 'HotTurns'));

    const results = await Promise.all([versions(1, 10), versions(11, 20), versions(21, 30)].map((batch) => projection.applyBatch(batch)));

    expect(results.map((result) => result.outcomes.map((outcome) => outcome.status))).toEqual([['applied'], ['applied'], ['applied']]);
    expect(results.map((result) => result.stats)).toEqual(
      Array.from({ length: 3 }, () => expect.objectContaining({ gapReads: 0, lostRaces: 0, rowsWritten: 1 })),
    );
    // The first call reads the row; the others are handed it as the call before wrote it.
    expect(requests.count('GetItemCommand') + requests.count('BatchGetItemCommand')).toBe(1);
    expect(read.items).toBe(0);
    expect(requests.failures.size).toBe(0);
    await expectFolded('HotTurns', truth);
  } finally {
    lane.destroy();
  }
});

test('a row handed on stale (another process wrote it in between) fails its write and is read again at once', async () => {
  const lane = testClient();
  try {
    const other = orderSummaryProjection(stream, orderSummaries(client, viewsTable, 'HotStale'));
    let puts = 0;
    lane.middlewareStack.add(
      (next, context) => async (args) => {
        // Before the second call's write, another process brings the row to 15.
        if (context.commandName === 'PutItemCommand' && ++puts === 2) await other.applyBatch(versions(11, 15));
        return next(args);
      },
      { step: 'initialize', name: 'otherProcessWritesBetween' },
    );
    const requests = countRequests(lane);
    const projection = orderSummaryProjection(orderStream(lane, eventsTable), orderSummaries(lane, viewsTable, 'HotStale'));

    const [first, second] = await Promise.all([projection.applyBatch(versions(1, 10)), projection.applyBatch(versions(11, 20))]);

    expect(first?.stats).toMatchObject({ lostRaces: 0, rowsWritten: 1 });
    expect(second?.outcomes).toEqual([
      expect.objectContaining({ status: 'applied', applied: versions(16, 20).map((event) => expect.objectContaining({ version: event.version })) }),
    ]);
    expect(second?.stats).toMatchObject({ lostRaces: 1, rowsWritten: 1, gapReads: 0 });
    // The first call's read, and the second's after its handed row's write failed.
    expect(requests.count('GetItemCommand') + requests.count('BatchGetItemCommand')).toBe(2);
    expect(requests.failures).toEqual(new Map([['PutItemCommand:ConditionalCheckFailedException', 1]]));
    await expectFolded('HotStale', versions(1, 20));
  } finally {
    lane.destroy();
  }
});
