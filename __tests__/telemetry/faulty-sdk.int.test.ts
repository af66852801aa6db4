/**
 * An app's OpenTelemetry SDK that throws changes no outcome: every traced operation (appends, loads,
 * reads, snapshots, commands, each transport's batches and rows, rebuild, catch-up, backfill, parking and
 * replay, the change feed, the outbox relay, forgetting a subject) run with a span processor that throws
 * in `onStart`, one that throws in `onEnd` over spans whose methods throw, a context manager that
 * throws, and a metric reader or view that throws, ends exactly as it ends with no SDK registered.
 */
import { DynafoldError, Projection, type StreamEvent } from 'dynafold';
import { ChangeFeedConsumer, MemoryCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { kinesisHandler, lambdaHandler, type PartialBatchResponse } from 'dynafold/lambda';
import { toKinesisRecord } from 'dynafold/local';
import { OutboxRelay, outboxTableDefinition, type OutboxMessage } from 'dynafold/outbox';
import { localFeed, streamsClient } from '../feed/support';
import { lambdaStreamEvent } from '../fixtures/dynamodb-stream-event';
import { customerSetupOfFile } from '../support/customer-setup';
import { createTestTable, testClient } from '../support/dynamo';
import { createOrderSummaryTables } from '../support/order-tables';
import { evolveSummary, initialSummary, orderSummaries, type OrderSummary } from '../support/order-projection';
import { emptyOrder, evolveOrder, type OrderEvent, type orderStream } from '../support/orders';
import { eventKeysOf, insertsOnly, readStreamRecords } from '../support/stream-records';
import { registerFaultyTelemetry, type FaultSchedule, type SdkFault } from '../support/telemetry';

const client = testClient();
const streams = streamsClient();
const customers = customerSetupOfFile('otel-faulty');
afterAll(() => {
  client.destroy();
  streams.destroy();
});

/** What an operation ended in, as two runs can compare it: its value made plain, or the error it threw. */
type Log = Array<readonly [string, unknown]>;

const placed = (customer: string) => ({ type: 'OrderPlaced', data: { customer } }) as const;
const item = (sku: string, price: number) => ({ type: 'ItemAdded', data: { sku, price } }) as const;
const shipped = { type: 'OrderShipped', data: {} } as const;

/** An event as the outcome names it: what a run's clock and trace leave alone. */
const plainEvent = (event: StreamEvent) => ({ streamId: event.streamId, version: event.version, type: event.type, data: event.data });

/** An error as the outcome names it: a dynafold error by its code, any other by its name and message. */
function errorOf(error: unknown): string {
  if (error instanceof DynafoldError) return error.code;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Drops what differs between two runs of the same operations (times, trace contexts) from a value. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Error) return errorOf(value);
  if (typeof value !== 'object' || value === null) return value;
  const kept = Object.entries(value).filter(([key]) => !['timestamp', 'trace', 'durationMs'].includes(key) && !key.endsWith('At'));
  return Object.fromEntries(kept.map(([key, inner]) => [key, plain(inner)]));
}

/** `value` with `prefix` (a run's, in the ids it makes) taken out of its strings. */
function unprefixed(value: unknown, prefix: string): unknown {
  if (typeof value === 'string') return value.replaceAll(prefix, '');
  if (Array.isArray(value)) return value.map((inner) => unprefixed(inner, prefix));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, unprefixed(inner, prefix)]));
}

/** Runs every traced operation on fresh tables; resolves what each ended in. */
async function everyOperation(prefix: string): Promise<Log> {
  const log: Log = [];
  const step = async <T>(label: string, run: () => Promise<T>, view: (value: T) => unknown = plain): Promise<void> => {
    try {
      log.push([label, view(await run())]);
    } catch (error) {
      log.push([label, { threw: errorOf(error) }]);
    }
  };
  const appended = ({ version, events }: { version: number; events: ReadonlyArray<StreamEvent> }) => ({ version, events: events.map(plainEvent) });
  const batch = ({ response, outcomes }: { response: PartialBatchResponse; outcomes: unknown }) => plain({ response, outcomes });

  const { stream, summaries, projection, streamArn, viewsTable, eventsTable } = await createOrderSummaryTables(client, prefix);
  await step('append', () => stream.append({ orderId: 'o-1' }, [placed('ada'), item('pen', 2)]), appended);
  await step('append with a key', () => stream.append({ orderId: 'o-1' }, [item('ink', 3)], { idempotencyKey: 'k-1' }), appended);
  await step('append repeated', () => stream.append({ orderId: 'o-1' }, [item('ink', 3)], { idempotencyKey: 'k-1' }), appended);
  await step('append at a stale version', () => stream.append({ orderId: 'o-1' }, [shipped], { expectedVersion: 1 }), appended);
  await step('append invalid', () => stream.append({ orderId: 'o-1' }, [item('pen', 'two' as never)]), appended);
  let raced = false;
  const decider = {
    initial: emptyOrder,
    evolve: evolveOrder,
    decide: async () => {
      // Another writer takes the next version while the command decides, once.
      if (!raced) {
        raced = true;
        await stream.append({ orderId: 'o-1' }, [item('cap', 1)]);
      }
      return [shipped];
    },
  };
  await step(
    'execute, racing',
    () => stream.execute({ orderId: 'o-1' }, decider),
    ({ version, state, events }) => plain({ version, state, events }),
  );
  const fold = { initial: emptyOrder, evolve: evolveOrder };
  await step('load, saving a snapshot', () => stream.load({ orderId: 'o-1' }, fold, { snapshot: { every: 1 } }));
  await step('snapshot', () => stream.loadSnapshot({ orderId: 'o-1' }));
  await step('load from the snapshot', () => stream.load({ orderId: 'o-1' }, fold, { snapshot: {} }));
  await step('read', async () => (await stream.read({ orderId: 'o-1' })).map(plainEvent));
  await step('version', () => stream.version({ orderId: 'o-1' }));
  for (const events of [[placed('bo')], [item('pen', 2)], [item('ink', 3)]])
    await step('append to o-2', () => stream.append({ orderId: 'o-2' }, events), appended);

  const records = insertsOnly(await readStreamRecords(streamArn));
  const of = (orderId: string) => records.filter((record) => eventKeysOf(record.dynamodb?.NewImage).streamId === orderId);
  await step('processBatch', () => projection.processBatch(of('o-1')), batch);
  // Only o-2's last event delivered: its row reads the others to fill the gap.
  const handler = lambdaHandler({ projections: { summaries: projection } });
  await step('lambdaHandler, a gap', () => handler(lambdaStreamEvent(of('o-2').slice(-1), { streamArn })));
  const kinesisArn = 'arn:aws:kinesis:ddblocal:000000000000:stream/orders';
  const kinesis = records.map((record) => toKinesisRecord(record, { streamArn: kinesisArn, tableName: eventsTable }));
  await step('kinesisHandler, redelivered', () => kinesisHandler({ projections: { summaries: projection } })({ Records: kinesis }));
  await step('rows', () => Promise.all(['o-1', 'o-2'].map((orderId) => summaries.get({ orderId }))));
  await step('rebuild', () => projection.rebuild({ orderId: 'o-1' }));
  await step('catchUp', () => projection.catchUp({ orderId: 'o-2' }));
  await step(
    'backfill',
    () => projection.backfill({ segments: 2 }),
    ({ instancesDone, eventsApplied }) => ({ instancesDone, eventsApplied }),
  );

  // A row parked by the poison policy, replayed once evolve is fixed.
  let broken = true;
  const parking = orderProjection(stream, orderSummaries(client, viewsTable, 'Parked'), {
    evolve: (state, event) => {
      if (broken) throw new Error('not yet');
      return evolveSummary(state, event);
    },
    poison: { park: { afterAttempts: 1 } },
    logger: {},
  });
  await step('a row parked', () => parking.processBatch(of('o-1'), { logger: false }), batch);
  broken = false;
  await step('retryParked', () => parking.retryParked());
  await step('parked rows', () => parkedKeys(parking));

  // The change feed, into a model of its own.
  const fed = orderProjection(stream, orderSummaries(client, viewsTable, 'Fed'));
  const feed = new ChangeFeedConsumer({
    streamsClient: streams,
    streamArn,
    consumer: 'views',
    checkpoints: new MemoryCheckpointStore(),
    ...localFeed,
  });
  const batches: unknown[] = [];
  await step('change feed', () =>
    runChangeFeed(feed, { projections: { fed }, stopWhenCaughtUp: true, onBatch: (result) => void batches.push(plain(result.response)) }),
  );
  await step('change feed batches', async () => batches);
  await step('rows fed', () => Promise.all(['o-1', 'o-2'].map((orderId) => fed.readModel.get({ orderId }))));

  // The outbox: messages written with their rows, then published by the relay.
  const outbox = await createTestTable(client, outboxTableDefinition, `${prefix}-outbox`);
  const messaging = orderProjection(stream, orderSummaries(client, viewsTable, 'Messaging'), {
    outbox: { table: outbox.name, message: (event: OrderEvent) => ({ type: event.type }) },
  });
  await step('outbox rows', () => messaging.processBatch(records), batch);
  const published: OutboxMessage[] = [];
  const relay = new OutboxRelay({ client, table: outbox.name, publish: async (message) => void published.push(message) });
  await step('relay', () => relay.drainAll());
  await step('published', async () => published.map(({ id, message }) => ({ id, message })).sort((a, b) => a.id.localeCompare(b.id)));

  // A subject forgotten: its key goes, and its data reads as redacted.
  const keys = customers.keys();
  const people = customers.customers(keys);
  const customerId = `${prefix}-c-1`;
  await step('append personal data', () =>
    people.append({ customerId }, [{ type: 'Registered', data: { name: 'Ada', email: 'ada@example.com', country: 'UK' } }]),
  );
  await step(
    'forget',
    () => keys.forget(customerId),
    ({ alreadyForgotten, keyDeleted }) => ({ alreadyForgotten, keyDeleted }),
  );
  await step('read forgotten', async () => (await customers.customers().read({ customerId })).map((event) => event.data));
  return log.map(([label, outcome]) => [label, unprefixed(outcome, prefix)] as const);
}

/** An order summary projection on `readModel`, with `evolve` and other options of its own. */
function orderProjection(
  stream: ReturnType<typeof orderStream>,
  readModel: ReturnType<typeof orderSummaries>,
  options: {
    evolve?: (state: OrderSummary, event: OrderEvent) => OrderSummary;
    poison?: { park: { afterAttempts: number } };
    logger?: Record<string, never>;
    outbox?: { table: string; message: (event: OrderEvent) => unknown };
  } = {},
) {
  return new Projection({
    stream,
    readModel,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: options.evolve ?? ((state: OrderSummary, event: OrderEvent) => evolveSummary(state, event)),
    checkpoint: 'version',
    ...(options.poison === undefined ? {} : { poison: options.poison }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.outbox === undefined ? {} : { outbox: options.outbox }),
  });
}

async function parkedKeys(projection: { parkedRows(): AsyncIterable<{ key: unknown }> }): Promise<unknown[]> {
  const keys: unknown[] = [];
  for await (const row of projection.parkedRows()) keys.push(row.key);
  return keys;
}

/** The SDKs that throw, each where an app's can: what each throws in, and the metrics side's fault. */
const faultySdks: ReadonlyArray<readonly [string, ReadonlyArray<SdkFault>, 'instruments' | 'measure']> = [
  ['a span processor that throws in onStart, and a view that throws on every measurement', ['spanStart', 'measure'], 'measure'],
  [
    'a span processor that throws in onEnd, over spans whose methods throw (set, events, links, status, context), and a reader that throws',
    ['spanEnd', 'spanCall', 'instruments'],
    'instruments',
  ],
  ['a context manager that throws', ['context'], 'measure'],
];

let withoutSdk: Log;
const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
afterAll(() => warn.mockRestore());
beforeAll(async () => {
  withoutSdk = await everyOperation('otel-plain');
}, 120_000);

test('the operations run with no SDK end as they should: events stored once, rows written and reported applied, nothing parked', () => {
  const outcome = new Map(withoutSdk);
  expect(outcome.get('append')).toMatchObject({ version: 2 });
  expect(outcome.get('append repeated')).toEqual(outcome.get('append with a key'));
  expect(outcome.get('append at a stale version')).toEqual({ threw: 'store.concurrency' });
  expect(outcome.get('append invalid')).toEqual({ threw: 'store.validation' });
  expect(outcome.get('execute, racing')).toMatchObject({ version: 5 });
  expect((outcome.get('read') as Array<{ version: number }>).map((event) => event.version)).toEqual([1, 2, 3, 4, 5]);
  expect(outcome.get('lambdaHandler, a gap')).toEqual({ batchItemFailures: [] });
  expect(outcome.get('rows')).toMatchObject([
    { orderId: 'o-1', status: 'shipped', items: 3, version: 5 },
    { orderId: 'o-2', status: 'placed', items: 2, version: 3 },
  ]);
  expect(outcome.get('retryParked')).toMatchObject([{ status: 'applied' }]);
  expect(outcome.get('parked rows')).toEqual([]);
  expect(outcome.get('rows fed')).toMatchObject([{ version: 5 }, { version: 3 }]);
  expect(outcome.get('relay')).toMatchObject({ published: 8 });
  expect(outcome.get('read forgotten')).toEqual([{ name: '[erased]', email: '[erased]', country: 'UK' }]);
});

test.each(faultySdks)('with %s, every operation ends as it does with no SDK', async (_name, faults, meter) => {
  const schedule: FaultSchedule = (fault) => faults.includes(fault);
  const sdk = registerFaultyTelemetry(schedule, meter);
  let withFaultySdk: Log;
  try {
    withFaultySdk = await everyOperation(`otel-faulty-${faults[0]}`);
  } finally {
    await sdk.shutdown();
  }
  // The SDK did throw, at each place it was told to.
  expect(faults.filter((fault) => (sdk.thrown.get(fault) ?? 0) === 0)).toEqual([]);
  expect(withFaultySdk).toEqual(withoutSdk);
});

test("the SDK's throws were told once per kind of call, each as one JSON line", () => {
  const told = warn.mock.calls
    .map(([line]) => JSON.parse(String(line)) as { otelCall?: string; error?: { message?: string } })
    .filter((entry) => entry.otelCall !== undefined);
  const calls = told.map((entry) => entry.otelCall);
  expect(calls).toEqual([...new Set(calls)]);
  expect([...calls].sort()).toEqual(
    [
      'end a span',
      'make instruments',
      'read a trace context',
      'read the active span',
      'record a measurement',
      'record on a span',
      'run in a span',
      'start a span',
    ].sort(),
  );
  expect(told.every((entry) => entry.error?.message?.startsWith('the SDK fails') === true)).toBe(true);
});
