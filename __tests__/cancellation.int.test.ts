/**
 * Cancellation: every call takes an AbortSignal that reaches each of its requests. An aborted call rejects
 * with the signal's reason (a projection's batch reports the rows it did not finish as failed with it),
 * writes nothing it had not written, and never counts towards parking a row. `lambdaHandler` cuts a batch
 * short before the invocation's timeout the same way.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Projection, eventsTableDefinition, lambdaHandler, readModelTableDefinition, type StreamEvent } from 'dynafold';
import { OutboxRelay, outboxTableDefinition } from 'dynafold/outbox';
import { lambdaStreamEventOf } from './fixtures/dynamodb-stream-event';
import { createTestTable, localConfig, testClient } from './support/dynamo';
import { evolveSummary, foldSummary, initialSummary, orderSummaries, orderSummaryProjection } from './support/order-projection';
import { emptyOrder, evolveOrder, orderStream, type OrderEvent } from './support/orders';

const client = testClient();
const orderIds = ['a', 'b', 'c'];
const reason = new Error('the caller gave up');
let eventsTable: string;
let streamArn: string;
let viewsTable: string;
let stream: ReturnType<typeof orderStream>;
const truth = new Map<string, OrderEvent[]>();

/** A client that aborts `controller` as soon as a request of `command` (the low-level command's name) answered. */
function abortingAfter(command: string, controller: AbortController): DynamoDBClient {
  const aborting = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
  aborting.middlewareStack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      if (context.commandName === command) controller.abort(reason);
      return output;
    },
    { step: 'initialize', name: 'abortAfter' },
  );
  return aborting;
}

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'cancel-events');
  eventsTable = events.name;
  streamArn = events.streamArn as string;
  stream = orderStream(client, eventsTable);
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'cancel-views')).name;
  for (const orderId of orderIds) {
    await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: orderId } }]);
    await stream.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }]);
    truth.set(orderId, await stream.read({ orderId }));
  }
});

afterAll(() => client.destroy());

/** A client that aborts `controller` with `why` just before it sends the `nth` request of `command`, so that request is cut short in flight. */
function abortingBefore(command: string, nth: number, controller: AbortController, why: unknown): DynamoDBClient {
  const aborting = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
  let seen = 0;
  aborting.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === command && ++seen === nth) controller.abort(why);
      return next(args);
    },
    { step: 'initialize', name: 'abortBefore' },
  );
  return aborting;
}

// Whatever the caller aborts with comes back as it is, as fetch does: an Error, or a string or number.
const reasons: ReadonlyArray<[string, unknown]> = [
  ['an Error', reason],
  ['a string', 'shutdown'],
  ['a number', 42],
];

test.each(reasons)(
  'an aborted signal (%s) rejects every store and read-model call with its reason, and nothing is written',
  async (_kind, reason) => {
    const signal = AbortSignal.abort(reason);
    const summaries = orderSummaries(client, viewsTable);
    const decider = { initial: emptyOrder, evolve: evolveOrder, decide: () => [{ type: 'OrderShipped' as const, data: {} }] };
    await expect(stream.append({ orderId: 'x' }, [{ type: 'OrderPlaced', data: { customer: 'x' } }], { signal })).rejects.toBe(reason);
    await expect(stream.append({ orderId: 'x' }, [{ type: 'OrderPlaced', data: { customer: 'x' } }], { expectedVersion: 0, signal })).rejects.toBe(
      reason,
    );
    await expect(stream.execute({ orderId: 'a' }, decider, { signal })).rejects.toBe(reason);
    await expect(stream.load({ orderId: 'a' }, decider, { signal, snapshot: { every: 1 } })).rejects.toBe(reason);
    await expect(stream.read({ orderId: 'a' }, { signal })).rejects.toBe(reason);
    await expect(stream.version({ orderId: 'a' }, { signal })).rejects.toBe(reason);
    await expect(stream.loadSnapshot({ orderId: 'a' }, undefined, { signal })).rejects.toBe(reason);
    await expect(summaries.get({ orderId: 'a' }, { signal })).rejects.toBe(reason);
    await expect(summaries.query('byStatus', { status: 'placed' }, { signal })).rejects.toBe(reason);
    expect(await stream.version({ orderId: 'x' })).toBe(0);
    expect(await stream.version({ orderId: 'a' })).toBe(2);
  },
);

test('a signal aborted while an append is under way stops it before its write and rejects with the reason', async () => {
  const controller = new AbortController();
  // The head is read first (a Query); the signal aborts on its answer, so the write (a PutItem) never leaves.
  const aborting = abortingAfter('QueryCommand', controller);
  try {
    const late = orderStream(aborting, eventsTable);
    await expect(late.append({ orderId: 'y' }, [{ type: 'OrderPlaced', data: { customer: 'y' } }], { signal: controller.signal })).rejects.toBe(
      reason,
    );
    expect(await stream.version({ orderId: 'y' })).toBe(0);
  } finally {
    aborting.destroy();
  }
});

test('applyBatch aborted mid-call: no row starts after it, the unfinished rows fail with its reason and are not counted towards parking, and a redelivery applies every event exactly once', async () => {
  const controller = new AbortController();
  const aborting = abortingAfter('PutItemCommand', controller);
  try {
    // One row at a time, parking after one failed attempt: an abort counted as a failure would park a row.
    const model = orderSummaries(aborting, viewsTable, 'Cut');
    const cut = new Projection({
      stream,
      readModel: model,
      key: (streamId) => ({ orderId: streamId.orderId }),
      initial: (streamId) => initialSummary(streamId.orderId),
      evolve: evolveSummary,
      checkpoint: 'version',
      concurrency: 1,
      poison: { park: { afterAttempts: 1 } },
    });
    const events = orderIds.flatMap((orderId) => truth.get(orderId) ?? []);
    const first = await cut.applyBatch(events, { signal: controller.signal });
    const applied = first.outcomes.filter((outcome) => outcome.status === 'applied');
    const failed = first.outcomes.filter((outcome) => outcome.status === 'failed');
    expect(applied).toHaveLength(1);
    expect(failed).toHaveLength(2);
    for (const outcome of failed) expect(outcome.status === 'failed' && outcome.error).toBe(reason);
    const parked = [];
    for await (const row of cut.parkedRows()) parked.push(row);
    expect(parked).toEqual([]);

    const again = orderSummaryProjection(stream, orderSummaries(client, viewsTable, 'Cut'));
    const second = await again.applyBatch(events);
    const appliedTwice = [...first.outcomes, ...second.outcomes].flatMap((outcome) =>
      outcome.applied.map((event) => `${event.streamId}@${event.version}`),
    );
    expect(appliedTwice.sort()).toEqual(events.map((event: StreamEvent) => `${event.streamId}@${event.version}`).sort());
    for (const orderId of orderIds) {
      const row = await orderSummaries(client, viewsTable, 'Cut').get({ orderId }, { consistent: true });
      expect(row).toMatchObject(foldSummary(orderId, truth.get(orderId) ?? []));
    }
  } finally {
    aborting.destroy();
  }
});

test('lambdaHandler: with no time left beyond its reserve, it writes no row and reports every row for a redelivery; with time, it applies them', async () => {
  const model = orderSummaries(client, viewsTable, 'Late');
  const handler = lambdaHandler({ projections: { late: orderSummaryProjection(stream, model) }, timeReserveMs: 500 });
  const event = await lambdaStreamEventOf(streamArn);
  const cut = await handler(event as never, { getRemainingTimeInMillis: () => 500 });
  expect(cut.batchItemFailures).toHaveLength(orderIds.length);
  for (const orderId of orderIds) expect(await model.get({ orderId }, { consistent: true })).toBeUndefined();

  const done = await handler(event as never, { getRemainingTimeInMillis: () => 60_000 });
  expect(done.batchItemFailures).toEqual([]);
  for (const orderId of orderIds)
    expect(await model.get({ orderId }, { consistent: true })).toMatchObject(foldSummary(orderId, truth.get(orderId) ?? []));
});

test('OutboxRelay.drainAll with an aborted signal rejects with its reason and publishes nothing', async () => {
  const outbox = (await createTestTable(client, outboxTableDefinition, 'cancel-outbox')).name;
  const published: string[] = [];
  const relay = new OutboxRelay({ client, table: outbox, publish: async (message) => void published.push(message.id) });
  await expect(relay.drainAll({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  expect(published).toEqual([]);
});

test.each(reasons)('a signal aborted (%s) while a read-your-writes read is in flight ends the wait with the reason', async (_kind, reason) => {
  const controller = new AbortController();
  const aborting = abortingBefore('GetItemCommand', 2, controller, reason);
  try {
    const projection = orderSummaryProjection(stream, orderSummaries(aborting, viewsTable, 'Unprojected'));
    await expect(projection.waitFor({ orderId: 'a' }, { version: 2, timeoutMs: 20_000, signal: controller.signal })).rejects.toBe(reason);
  } finally {
    aborting.destroy();
  }
});

// An append is one conditional PutItem of its commit, however many events it holds; with an idempotency
// key it is a transaction of the commit and the sentinel. An abort cuts either short.
const appendRequests = [
  ['a PutItem of one event', 'PutItemCommand', 1, undefined],
  ['a PutItem of a commit of two events', 'PutItemCommand', 2, undefined],
  ['a transaction of a commit and an idempotency sentinel', 'TransactWriteItemsCommand', 2, 'cancelled-append'],
] as const;
const appendCases = appendRequests.flatMap(([request, command, count, idempotencyKey]) =>
  reasons.map(([kind, reason]) => [kind, request, command, count, idempotencyKey, reason] as const),
);

test.each(appendCases)(
  'a signal aborted (%s) while an append (%s) is in flight rejects with the reason, and nothing is written',
  async (_kind, _request, command, count, idempotencyKey, reason) => {
    const controller = new AbortController();
    const aborting = abortingBefore(command, 1, controller, reason);
    try {
      const late = orderStream(aborting, eventsTable);
      const events = Array.from({ length: count }, () => ({ type: 'OrderPlaced' as const, data: { customer: 'z' } }));
      const options = { signal: controller.signal, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) };
      await expect(late.append({ orderId: 'z' }, events, options)).rejects.toBe(reason);
      expect(await stream.version({ orderId: 'z' })).toBe(0);
    } finally {
      aborting.destroy();
    }
  },
);

/** Every request `client` sends, by command, and how it ended: answered, or cut short. */
function recordRequests(client: DynamoDBClient): string[] {
  const requests: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        const output = await next(args);
        requests.push(`${String(context.commandName)} answered`);
        return output;
      } catch (error) {
        requests.push(`${String(context.commandName)} failed`);
        throw error;
      }
    },
    { step: 'initialize', name: 'recordRequests', priority: 'high' },
  );
  return requests;
}

test.each(reasons)(
  "an inline projection's reads carry the append's signal (%s): none is sent once it aborted, and one in flight is cut short",
  async (_kind, reason) => {
    const quiet = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
    const sent = recordRequests(quiet);
    const controller = new AbortController();
    const aborting = abortingBefore('GetItemCommand', 1, controller, reason);
    const cut = recordRequests(aborting);
    try {
      const aborted = orderSummaryProjection(stream, orderSummaries(quiet, viewsTable, 'InlineAborted'));
      await expect(
        stream.append({ orderId: 'i' }, [{ type: 'OrderPlaced', data: { customer: 'i' } }], { inline: [aborted], signal: AbortSignal.abort(reason) }),
      ).rejects.toBe(reason);
      expect(sent).toEqual([]);

      const inFlight = orderSummaryProjection(stream, orderSummaries(aborting, viewsTable, 'InlineInFlight'));
      await expect(
        stream.append({ orderId: 'i' }, [{ type: 'OrderPlaced', data: { customer: 'i' } }], { inline: [inFlight], signal: controller.signal }),
      ).rejects.toBe(reason);
      expect(cut).toEqual(['GetItemCommand failed']);
      expect(await stream.version({ orderId: 'i' })).toBe(0);
    } finally {
      quiet.destroy();
      aborting.destroy();
    }
  },
);

test('a signal aborted while a call waits between reads ends it with the reason too (read-your-writes on a row nobody projects)', async () => {
  const projection = orderSummaryProjection(stream, orderSummaries(client, viewsTable, 'Unprojected'));
  const controller = new AbortController();
  setTimeout(() => controller.abort(reason), 150);
  await expect(projection.waitFor({ orderId: 'a' }, { version: 2, timeoutMs: 20_000, signal: controller.signal })).rejects.toBe(reason);
});
