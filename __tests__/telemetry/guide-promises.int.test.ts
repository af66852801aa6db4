/**
 * What the observability guide promises of the spans, where a row or an append takes its less common
 * path: a row that fills a gap links to the append of every event it applied (one link per append), a row
 * whose evolve fails after earlier events were written fails its span, a failed append's span names its
 * stream instance, a command's winning try its version, and a span's consumed capacity is the sum over
 * every request of its operation (an append's head read, a row's gap read).
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { ConcurrencyError, Projection, ValidationError, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { lambdaHandler } from 'dynafold/lambda';
import { lambdaStreamEvent } from '../fixtures/dynamodb-stream-event';
import { createTestTable, testClient } from '../support/dynamo';
import { createOrderSummaryTables } from '../support/order-tables';
import { evolveSummary, initialSummary, orderSummaries, orderSummaryProjection, type OrderSummary } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';
import { eventKeysOf, insertsOnly, readStreamRecords } from '../support/stream-records';
import { idsOf, linkTargets, onlySpan, registerTelemetry, spansNamed } from '../support/telemetry';

const client = testClient();
const telemetry = registerTelemetry();
afterAll(async () => {
  client.destroy();
  await telemetry.shutdown();
});
beforeEach(() => telemetry.reset());

/** Each request the client sent: its command, the span active when it was sent, and the capacity it consumed. */
const sent: Array<{ command: string; spanId: string | undefined; capacity: unknown }> = [];
client.middlewareStack.add(
  (next, context) => async (args) => {
    const spanId = trace.getActiveSpan()?.spanContext().spanId;
    const result = await next(args);
    sent.push({ command: context.commandName ?? '', spanId, capacity: (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity });
    return result;
  },
  { step: 'initialize', name: 'capacityLog' },
);

/** Appends inside a request's span, as a route would; answers the append span's ids. */
async function appendInRequest(stream: ReturnType<typeof orderStream>, orderId: string, events: Parameters<typeof stream.append>[1]) {
  await trace.getTracer('test').startActiveSpan('request', async (span) => {
    await stream.append({ orderId }, events);
    span.end();
  });
  return idsOf(spansNamed(telemetry.spans(), 'append Order').at(-1) as ReadableSpan);
}

const placed = { type: 'OrderPlaced', data: { customer: 'ada' } } as const;
const item = (sku: string) => ({ type: 'ItemAdded', data: { sku, price: 1 } }) as const;
const linkOf = (ids: { traceId: string; spanId: string }, versions: number[]) => ({
  ...ids,
  attributes: { 'dynafold.stream.name': 'Order', 'dynafold.stream.id': 'o-1', 'dynafold.event.versions': versions },
});

test('a row that fills a gap links to the append of every event it applied, the delivered ones first, one link per append', async () => {
  const { stream, projection, streamArn } = await createOrderSummaryTables(client, 'otel-gap');
  const first = await appendInRequest(stream, 'o-1', [placed, item('pen')]);
  const second = await appendInRequest(stream, 'o-1', [item('ink')]);
  const third = await appendInRequest(stream, 'o-1', [item('cap')]);
  telemetry.reset();
  // Only the last append's record comes: the row reads versions 1 to 3 to fill the gap.
  const records = insertsOnly(await readStreamRecords(streamArn));
  expect(await lambdaHandler({ projections: { summaries: projection } })(lambdaStreamEvent(records.slice(-1), { streamArn }))).toEqual({
    batchItemFailures: [],
  });
  const spans = telemetry.spans();
  const row = onlySpan(spans, 'writeRow Order->OrderSummary');
  expect(row.attributes['dynafold.event.versions']).toEqual([1, 2, 3, 4]);
  expect(linkTargets(row.links)).toEqual([linkOf(third, [4]), linkOf(first, [1, 2]), linkOf(second, [3])]);
  // Searching for the spans linked to the first append finds the row that projected it.
  const linkedToFirst = spans.filter((span) => span.links.some((link) => link.context.spanId === first.spanId));
  expect(linkedToFirst.map((span) => span.name)).toEqual(['writeRow Order->OrderSummary']);
});

test("with an item per event, the gap's events of a delivered event's append share its one link", async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'otel-gap-items');
  const stream = orderStream(client, events.name, { itemPerEvent: true });
  const views = await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'otel-gap-items-views');
  const projection = orderSummaryProjection(stream, orderSummaries(client, views.name));
  const append = await appendInRequest(stream, 'o-1', [placed, item('pen'), item('ink')]);
  telemetry.reset();
  const streamArn = events.streamArn as string;
  const records = insertsOnly(await readStreamRecords(streamArn));
  const last = records.filter((record) => eventKeysOf(record.dynamodb?.NewImage).version === 3);
  expect(await lambdaHandler({ projections: { summaries: projection } })(lambdaStreamEvent(last, { streamArn }))).toEqual({ batchItemFailures: [] });
  const row = onlySpan(telemetry.spans(), 'writeRow Order->OrderSummary');
  expect(linkTargets(row.links)).toEqual([linkOf(append, [1, 2, 3])]);
});

test('a row whose evolve throws on a later event fails its span, though the events before it were written', async () => {
  const { stream, summaries, streamArn } = await createOrderSummaryTables(client, 'otel-later');
  await stream.append({ orderId: 'o-1' }, [placed, item('pen')]);
  const broken = new Projection({
    stream,
    readModel: summaries,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state: OrderSummary, event: OrderEvent) => {
      if (event.type === 'ItemAdded') throw new Error('no items yet');
      return evolveSummary(state, event);
    },
    checkpoint: 'version',
    logger: {},
  });
  telemetry.reset();
  const records = insertsOnly(await readStreamRecords(streamArn));
  const { response, outcomes } = await broken.processBatch(records, { logger: false });
  expect(response.batchItemFailures).toHaveLength(1);
  expect(outcomes.map((outcome) => [outcome.status, outcome.applied.map((event) => event.version)])).toEqual([['failed', [1]]]);
  expect((await summaries.get({ orderId: 'o-1' }))?.version).toBe(1);
  const row = onlySpan(telemetry.spans(), 'writeRow Order->OrderSummary');
  expect(row.attributes).toMatchObject({ 'dynafold.event.versions': [1], 'dynafold.row.written': true, 'error.type': 'Error' });
  expect(row.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no items yet' });
  expect(row.events.map((event) => [event.name, event.attributes?.['exception.message']])).toEqual([['exception', 'no items yet']]);
});

test("a failed append's span names its stream instance", async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'otel-failed-append');
  const stream = orderStream(client, events.name);
  await stream.append({ orderId: 'o-1' }, [placed]);
  telemetry.reset();
  await expect(stream.append({ orderId: 'o-1' }, [item('pen')], { expectedVersion: 0 })).rejects.toThrow(ConcurrencyError);
  await expect(stream.append({ orderId: 'o-2' }, [item(7 as never)])).rejects.toThrow(ValidationError);
  const [stale, invalid] = spansNamed(telemetry.spans(), 'append Order') as [ReadableSpan, ReadableSpan];
  expect(stale.attributes).toMatchObject({ 'dynafold.stream.id': 'o-1', 'error.type': 'store.concurrency' });
  expect(invalid.attributes).toMatchObject({ 'dynafold.stream.id': 'o-2', 'error.type': 'store.validation' });
  expect(stale.attributes['dynafold.version']).toBeUndefined();
});

test("a command's winning try says the version it appended at; the lost one says none", async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'otel-command-version');
  const stream = orderStream(client, events.name);
  await stream.append({ orderId: 'o-1' }, [placed]);
  telemetry.reset();
  let raced = false;
  await stream.execute(
    { orderId: 'o-1' },
    {
      initial: null,
      evolve: (state) => state,
      decide: async () => {
        if (!raced) {
          raced = true;
          await stream.append({ orderId: 'o-1' }, [item('pen')]);
        }
        return [{ type: 'OrderShipped', data: {} }];
      },
    },
  );
  const [other, lost, won] = spansNamed(telemetry.spans(), 'append Order') as [ReadableSpan, ReadableSpan, ReadableSpan];
  expect(other.attributes['dynafold.version']).toBe(2);
  expect(lost.attributes['dynafold.version']).toBeUndefined();
  expect(won.attributes).toMatchObject({ 'dynafold.expected_version': 2, 'dynafold.version': 3 });
});

/** What the requests sent inside a span consumed, summed per table as the span's attribute lists it. */
function consumedIn(spanId: string): unknown[] {
  const byTable = new Map<string, Record<string, number | string>>();
  for (const request of sent.filter((each) => each.spanId === spanId)) {
    for (const capacity of [request.capacity].flat() as Array<Record<string, number | string> | undefined>) {
      if (capacity === undefined) continue;
      const table = String(capacity['TableName']);
      const total = byTable.get(table) ?? {};
      for (const [field, value] of Object.entries(capacity))
        total[field] = typeof value === 'number' ? ((total[field] as number | undefined) ?? 0) + value : value;
      byTable.set(table, total);
    }
  }
  return [...byTable.values()];
}

const capacityOf = (span: ReadableSpan) =>
  ((span.attributes['aws.dynamodb.consumed_capacity'] as string[] | undefined) ?? []).map((each) => JSON.parse(each) as unknown);

test("a span's consumed capacity sums every request of its operation: the append's head read, the row's gap read", async () => {
  const { stream, projection, streamArn, eventsTable, viewsTable } = await createOrderSummaryTables(client, 'otel-capacity');
  await stream.append({ orderId: 'o-1' }, [placed]);
  // Another process's stream, which knows nothing of o-1: its append reads the head first.
  const other = orderStream(client, eventsTable);
  telemetry.reset();
  sent.length = 0;
  await other.append({ orderId: 'o-1' }, [item('pen')]);
  const append = onlySpan(telemetry.spans(), 'append Order');
  const inAppend = sent.filter((request) => request.spanId === append.spanContext().spanId);
  // Every request of the append asked for its capacity, the head read too.
  expect(inAppend.map((request) => [request.command, request.capacity !== undefined])).toEqual([
    ['QueryCommand', true],
    ['PutItemCommand', true],
  ]);
  expect(capacityOf(append)).toEqual(consumedIn(append.spanContext().spanId));
  expect(capacityOf(append)).toEqual([expect.objectContaining({ TableName: eventsTable })]);

  telemetry.reset();
  sent.length = 0;
  const records = insertsOnly(await readStreamRecords(streamArn));
  expect(await lambdaHandler({ projections: { summaries: projection } })(lambdaStreamEvent(records.slice(-1), { streamArn }))).toEqual({
    batchItemFailures: [],
  });
  const row = onlySpan(telemetry.spans(), 'writeRow Order->OrderSummary');
  const inRow = sent.filter((request) => request.spanId === row.spanContext().spanId);
  expect(inRow.map((request) => request.command)).toContain('QueryCommand');
  expect(inRow.filter((request) => request.capacity === undefined)).toEqual([]);
  expect(capacityOf(row)).toEqual(consumedIn(row.spanContext().spanId));
  expect(
    capacityOf(row)
      .map((each) => (each as { TableName: string }).TableName)
      .sort(),
  ).toEqual([eventsTable, viewsTable].sort());
});
