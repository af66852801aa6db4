/**
 * Traces with an OpenTelemetry SDK registered (in-memory exporters) on DynamoDB Local: an append in a
 * Fastify route and its projection by `lambdaHandler` are one trace joined by a link, the link names the
 * right event however records are delivered, and failures mark their spans with their code.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import Fastify from 'fastify';
import { ConcurrencyError, EventStream, Projection, ValidationError, eventsTableDefinition } from 'dynafold';
import { lambdaHandler } from 'dynafold/lambda';
import { lambdaStreamEvent } from '../fixtures/dynamodb-stream-event';
import { createTestTable, testClient } from '../support/dynamo';
import { createOrderSummaryTables } from '../support/order-tables';
import { initialSummary, orderSummaryProjection, type OrderSummary } from '../support/order-projection';
import { orderStream } from '../support/orders';
import { insertsOnly, readStreamRecords } from '../support/stream-records';
import { counted, idsOf, linkTargets, measured, onlySpan, parentOf, registerTelemetry, spansNamed } from '../support/telemetry';

const client = testClient();
const telemetry = registerTelemetry();
afterAll(async () => {
  client.destroy();
  await telemetry.shutdown();
});
beforeEach(() => telemetry.reset());

const setUp = (prefix: string) => createOrderSummaryTables(client, prefix);

/** Runs `fn` inside a span of its own: a request's, say, as an HTTP instrumentation starts it. */
function inRequestSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {
  return trace.getTracer('test').startActiveSpan(name, { kind: SpanKind.SERVER }, async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}

/** The Lambda event of the table's event INSERTs, in the order `order` picks them (indexes into the records). */
async function lambdaEventOf(streamArn: string, order?: ReadonlyArray<number>) {
  const records = insertsOnly(await readStreamRecords(streamArn));
  return lambdaStreamEvent(order === undefined ? records : order.map((index) => records[index] as (typeof records)[number]), { streamArn });
}

test('an append in a Fastify route and its projection by lambdaHandler are one trace joined by a link', async () => {
  const { stream, summaries, projection, eventsTable, streamArn, viewsTable } = await setUp('otel-http');
  const app = Fastify();
  app.post<{ Params: { orderId: string } }>('/orders/:orderId', (request) =>
    inRequestSpan('POST /orders/:orderId', async () => {
      const { version } = await stream.append({ orderId: request.params.orderId }, [
        { type: 'OrderPlaced', data: { customer: 'ada' } },
        { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
      ]);
      return { version };
    }),
  );
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const response = await fetch(`${base}/orders/o-1`, { method: 'POST' });
    expect(await response.json()).toEqual({ version: 2 });
  } finally {
    await app.close();
  }

  const handler = lambdaHandler({ projections: { summaries: projection } });
  expect(await handler(await lambdaEventOf(streamArn))).toEqual({ batchItemFailures: [] });
  expect((await summaries.get({ orderId: 'o-1' }))?.items).toBe(1);

  const spans = telemetry.spans();
  const request = onlySpan(spans, 'POST /orders/:orderId');
  const append = onlySpan(spans, 'append Order');
  // The append is a database client span, a child of the request, in its trace.
  expect(append.kind).toBe(SpanKind.CLIENT);
  expect(append.spanContext().traceId).toBe(request.spanContext().traceId);
  expect(parentOf(append)).toBe(request.spanContext().spanId);
  expect(append.attributes).toMatchObject({
    'db.system.name': 'aws.dynamodb',
    'db.operation.name': 'append',
    'db.collection.name': eventsTable,
    'aws.dynamodb.table_names': [eventsTable],
    'db.query.summary': 'append Order',
    'dynafold.stream.name': 'Order',
    'dynafold.stream.id': 'o-1',
    'dynafold.event.count': 2,
    'dynafold.version': 2,
  });
  // What the append's write consumed, as DynamoDB answered it.
  expect((append.attributes['aws.dynamodb.consumed_capacity'] as string[]).map((each) => JSON.parse(each) as unknown)).toEqual([
    expect.objectContaining({ TableName: eventsTable, CapacityUnits: expect.any(Number) as unknown }),
  ]);
  // The commit stores the append span's context once, for both events.
  const stored = await client.send(new GetItemCommand({ TableName: eventsTable, Key: { pk: { S: 'Order#o-1' }, sk: { S: 'e#0000000001' } } }));
  const { traceId, spanId } = idsOf(append);
  const tc = unmarshall(stored.Item ?? {})['tc'] as Uint8Array;
  expect(Buffer.from(tc).toString('hex')).toBe(`00${traceId}${spanId}01`);
  const read = await stream.read({ orderId: 'o-1' });
  expect(read.map((event) => event.trace)).toEqual([{ traceparent: `00-${traceId}-${spanId}-01` }, { traceparent: `00-${traceId}-${spanId}-01` }]);

  // The batch is a consumer span of a trace of its own (one batch serves many traces), linked to the append.
  const process = onlySpan(spans, `process ${eventsTable}`);
  expect(process.kind).toBe(SpanKind.CONSUMER);
  expect(process.spanContext().traceId).not.toBe(traceId);
  expect(process.attributes).toMatchObject({
    'messaging.system': 'aws.dynamodb.streams',
    'messaging.operation.name': 'process',
    'messaging.batch.message_count': 1,
    'dynafold.transport': 'lambda',
    'dynafold.records.failed': 0,
  });
  const toAppend = [
    { traceId, spanId, attributes: { 'dynafold.stream.name': 'Order', 'dynafold.stream.id': 'o-1', 'dynafold.event.versions': [1, 2] } },
  ];
  expect(linkTargets(process.links)).toEqual(toAppend);
  // The row's write is its child, with the row's key and the versions it applied, linked to the append too.
  const row = onlySpan(spans, 'writeRow Order->OrderSummary');
  expect(parentOf(row)).toBe(process.spanContext().spanId);
  expect(row.attributes).toMatchObject({
    'db.system.name': 'aws.dynamodb',
    'db.collection.name': viewsTable,
    'dynafold.projection.name': 'Order->OrderSummary',
    'dynafold.row.key': JSON.stringify({ orderId: 'o-1' }),
    'dynafold.event.versions': [1, 2],
    'dynafold.row.written': true,
  });
  expect(linkTargets(row.links)).toEqual(toAppend);
  expect(JSON.parse((row.attributes['aws.dynamodb.consumed_capacity'] as string[])[0] ?? '{}')).toMatchObject({ TableName: viewsTable });

  const recorded = await telemetry.metrics();
  expect(counted(recorded.get('dynafold.events.appended'), { 'dynafold.stream.name': 'Order' })).toBe(2);
  expect(counted(recorded.get('dynafold.events.applied'), { 'dynafold.projection.name': 'Order->OrderSummary' })).toBe(2);
  expect(counted(recorded.get('dynafold.records'), { 'dynafold.transport': 'lambda' })).toBe(1);
  expect(counted(recorded.get('dynafold.rows.written'), { 'dynafold.projection.name': 'Order->OrderSummary' })).toBe(1);
  expect(measured(recorded.get('dynafold.projection.lag'), { 'dynafold.projection.name': 'Order->OrderSummary' }).count).toBe(2);
  expect(measured(recorded.get('dynafold.batch.duration'), { 'dynafold.transport': 'lambda' }).count).toBe(1);
});

test('redelivered and reordered records link each row to the appends of its own events', async () => {
  const { stream, projection, eventsTable, streamArn } = await setUp('otel-order');
  // Three appends, each in a trace of its own: two to o-1 (versions 1 and 2), one to o-2.
  await inRequestSpan('place o-1', () => stream.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]));
  await inRequestSpan('add to o-1', () => stream.append({ orderId: 'o-1' }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }]));
  await inRequestSpan('place o-2', () => stream.append({ orderId: 'o-2' }, [{ type: 'OrderPlaced', data: { customer: 'bo' } }]));
  const [place1, add1, place2] = spansNamed(telemetry.spans(), 'append Order').map(idsOf);
  const of = (ids: typeof place1, streamId: string, versions: number[]) => ({
    ...ids,
    attributes: { 'dynafold.stream.name': 'Order', 'dynafold.stream.id': streamId, 'dynafold.event.versions': versions },
  });
  telemetry.reset();

  // Reordered and repeated: o-2's, o-1's version 2, o-1's version 1, version 2 again.
  const handler = lambdaHandler({ projections: { summaries: projection } });
  expect(await handler(await lambdaEventOf(streamArn, [2, 1, 0, 1]))).toEqual({ batchItemFailures: [] });
  let spans = telemetry.spans();
  const process = onlySpan(spans, `process ${eventsTable}`);
  // One link per append, whatever the order and however often its record came.
  expect(linkTargets(process.links)).toEqual([of(place2, 'o-2', [1]), of(add1, 'o-1', [2]), of(place1, 'o-1', [1])]);
  const rows = spansNamed(spans, 'writeRow Order->OrderSummary');
  const rowOf = (orderId: string) => rows.find((span) => span.attributes['dynafold.row.key'] === JSON.stringify({ orderId })) as ReadableSpan;
  // Each row links to its own events' appends, in version order.
  expect(linkTargets(rowOf('o-1').links)).toEqual([of(place1, 'o-1', [1]), of(add1, 'o-1', [2])]);
  expect(rowOf('o-1').attributes['dynafold.event.versions']).toEqual([1, 2]);
  expect(linkTargets(rowOf('o-2').links)).toEqual([of(place2, 'o-2', [1])]);

  // Version 2 delivered again: linked to its append, and its row writes nothing.
  telemetry.reset();
  expect(await handler(await lambdaEventOf(streamArn, [1]))).toEqual({ batchItemFailures: [] });
  spans = telemetry.spans();
  expect(linkTargets(onlySpan(spans, `process ${eventsTable}`).links)).toEqual([of(add1, 'o-1', [2])]);
  const again = onlySpan(spans, 'writeRow Order->OrderSummary');
  expect(linkTargets(again.links)).toEqual([of(add1, 'o-1', [2])]);
  expect(again.attributes).toMatchObject({ 'dynafold.event.versions': [], 'dynafold.row.written': false });
  const recorded = await telemetry.metrics();
  expect(counted(recorded.get('dynafold.events.already_applied'), { 'dynafold.projection.name': 'Order->OrderSummary' })).toBe(1);
});

test("a failure sets its span's status, with the DynafoldError's code as error.type", async () => {
  const { stream, summaries, streamArn, eventsTable } = await setUp('otel-fail');
  // An invalid event: the append's span fails with store.validation.
  await expect(stream.append({ orderId: 'o-1' }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 'two' } } as never])).rejects.toThrow(
    ValidationError,
  );
  await stream.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  // A stale expectedVersion: store.concurrency.
  await expect(stream.append({ orderId: 'o-1' }, [{ type: 'OrderShipped', data: {} }], { expectedVersion: 0 })).rejects.toThrow(ConcurrencyError);
  const [invalid, appended, stale] = spansNamed(telemetry.spans(), 'append Order') as [ReadableSpan, ReadableSpan, ReadableSpan];
  expect(invalid.status.code).toBe(SpanStatusCode.ERROR);
  expect(invalid.attributes).toMatchObject({ 'error.type': 'store.validation', 'dynafold.error.code': 'store.validation' });
  expect(invalid.events.map((event) => event.name)).toEqual(['exception']);
  expect(appended.status.code).toBe(SpanStatusCode.UNSET);
  expect(stale.status.code).toBe(SpanStatusCode.ERROR);
  expect(stale.attributes['error.type']).toBe('store.concurrency');

  // A row whose evolve throws: its write's span fails, and the batch's span names the record it reports.
  telemetry.reset();
  const broken = new Projection({
    stream,
    readModel: summaries,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (): OrderSummary => {
      throw new Error('boom');
    },
    checkpoint: 'version',
  });
  const handler = lambdaHandler({ projections: { summaries: broken }, logger: false });
  const event = await lambdaEventOf(streamArn);
  expect(await handler(event)).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[0]?.dynamodb?.SequenceNumber }] });
  const spans = telemetry.spans();
  const row = onlySpan(spans, 'writeRow Order->OrderSummary');
  expect(row.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
  expect(row.attributes['error.type']).toBe('Error');
  const process = onlySpan(spans, `process ${eventsTable}`);
  expect(process.status.code).toBe(SpanStatusCode.ERROR);
  expect(process.attributes['dynafold.records.failed']).toBe(1);
  expect(process.events.filter((each) => each.name === 'dynafold.row.failed').map((each) => each.attributes?.['exception.message'])).toEqual([
    'boom',
  ]);
  const recorded = await telemetry.metrics();
  expect(counted(recorded.get('dynafold.records.failed'), { 'dynafold.transport': 'lambda' })).toBe(1);
  expect(counted(recorded.get('dynafold.rows.failed'))).toBe(1);

  // An undecodable record: the batch's span fails with store.decode.
  telemetry.reset();
  const good = lambdaHandler({ projections: { summaries: orderSummaryProjection(stream, summaries) }, logger: false });
  const bad = {
    Records: event.Records.map((record) => ({
      ...record,
      dynamodb: { ...record.dynamodb, NewImage: { ...record.dynamodb?.NewImage, type: { S: 'Nope' } } },
    })),
  };
  expect((await good(bad)).batchItemFailures).toHaveLength(1);
  const undecodable = onlySpan(telemetry.spans(), `process ${eventsTable}`);
  expect(undecodable.status.code).toBe(SpanStatusCode.ERROR);
  expect(undecodable.attributes['error.type']).toBe('store.decode');
});

test("a command's retries are events on its span, its appends its children", async () => {
  const { stream } = await setUp('otel-execute');
  await stream.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  telemetry.reset();
  let raced = false;
  await stream.execute(
    { orderId: 'o-1' },
    {
      initial: { items: 0 },
      evolve: (state) => state,
      decide: async () => {
        // Another writer takes the next version while the command decides, once.
        if (!raced) {
          raced = true;
          await stream.append({ orderId: 'o-1' }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }]);
        }
        return [{ type: 'OrderShipped', data: {} }];
      },
    },
  );
  const spans = telemetry.spans();
  const execute = onlySpan(spans, 'execute Order');
  expect(execute.kind).toBe(SpanKind.INTERNAL);
  expect(execute.attributes).toMatchObject({ 'dynafold.stream.id': 'o-1', 'dynafold.version': 3, 'dynafold.event.count': 1 });
  expect(execute.events.map((event) => [event.name, event.attributes])).toEqual([
    ['dynafold.retry', { 'dynafold.attempt': 1, 'dynafold.expected_version': 1, 'dynafold.version': 2 }],
  ]);
  const appends = spansNamed(spans, 'append Order');
  // The other writer's append, then the command's two tries: the lost one ends with no error.
  expect(appends.map((span) => parentOf(span))).toEqual([execute.spanContext().spanId, execute.spanContext().spanId, execute.spanContext().spanId]);
  expect(appends.map((span) => span.status.code)).toEqual([SpanStatusCode.UNSET, SpanStatusCode.UNSET, SpanStatusCode.UNSET]);
  const recorded = await telemetry.metrics();
  expect(counted(recorded.get('dynafold.append.conflicts'), { 'dynafold.stream.name': 'Order' })).toBeGreaterThanOrEqual(1);
});

test('traceContext: false stores no context, and spans are still made', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'otel-off');
  const base = orderStream(client, events.name);
  const quiet = new EventStream({ client, table: events.name, name: 'Order', streamId: ['orderId'], events: base.events, traceContext: false });
  await inRequestSpan('request', () => quiet.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]));
  expect(spansNamed(telemetry.spans(), 'append Order')).toHaveLength(1);
  const stored = await client.send(new GetItemCommand({ TableName: events.name, Key: { pk: { S: 'Order#o-1' }, sk: { S: 'e#0000000001' } } }));
  expect(unmarshall(stored.Item ?? {})['tc']).toBeUndefined();
  expect((await quiet.read({ orderId: 'o-1' }))[0]?.trace).toBeUndefined();
});

test("with itemPerEvent, each event's item carries the append's context", async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'otel-per-event');
  const perEvent = orderStream(client, events.name, { itemPerEvent: true });
  await inRequestSpan('request', () =>
    perEvent.append({ orderId: 'o-1' }, [
      { type: 'OrderPlaced', data: { customer: 'ada' } },
      { type: 'ItemAdded', data: { sku: 'pen', price: 2 } },
    ]),
  );
  const { traceId, spanId } = idsOf(onlySpan(telemetry.spans(), 'append Order'));
  for (const sk of ['e#0000000001', 'e#0000000002']) {
    const stored = await client.send(new GetItemCommand({ TableName: events.name, Key: { pk: { S: 'Order#o-1' }, sk: { S: sk } } }));
    expect(Buffer.from(unmarshall(stored.Item ?? {})['tc'] as Uint8Array).toString('hex')).toBe(`00${traceId}${spanId}01`);
  }
});
