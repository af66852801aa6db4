/**
 * The spans and metrics of the other transports and operations, with an OpenTelemetry SDK registered
 * (in-memory exporters) on DynamoDB Local: the change feed's batches and lease, Kinesis records, the
 * outbox relay's publish, a backfill's segments, a rebuild, and a row parked then replayed.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { Projection } from 'dynafold';
import { ChangeFeedConsumer, MemoryCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { kinesisHandler } from 'dynafold/lambda';
import { toKinesisRecord } from 'dynafold/local';
import { OutboxRelay, outboxTableDefinition, type OutboxMessage } from 'dynafold/outbox';
import { localFeed, streamsClient } from '../feed/support';
import { lambdaStreamEvent } from '../fixtures/dynamodb-stream-event';
import { createTestTable, testClient } from '../support/dynamo';
import { createOrderSummaryTables } from '../support/order-tables';
import { initialSummary, type OrderSummary } from '../support/order-projection';
import { evolveSummary } from '../support/order-projection';
import type { OrderEvent, orderStream } from '../support/orders';
import { insertsOnly, readStreamRecords } from '../support/stream-records';
import { counted, idsOf, linkTargets, measured, onlySpan, parentOf, registerTelemetry, spansNamed } from '../support/telemetry';

const client = testClient();
const streams = streamsClient();
const telemetry = registerTelemetry();
afterAll(async () => {
  client.destroy();
  streams.destroy();
  await telemetry.shutdown();
});
beforeEach(() => telemetry.reset());

const setUp = (prefix: string) => createOrderSummaryTables(client, prefix);

/** Appends inside a span of its own (a request's), and answers the append span's ids. */
async function appendTraced(stream: ReturnType<typeof orderStream>, orderId: string, events: Parameters<typeof stream.append>[1]) {
  await trace.getTracer('test').startActiveSpan('request', async (span) => {
    await stream.append({ orderId }, events);
    span.end();
  });
  const appends = spansNamed(telemetry.spans(), 'append Order');
  return idsOf(appends[appends.length - 1] as ReadableSpan);
}

test("the change feed's batches are process spans on their shard, linked to the appends; its lease and iterator age are measured", async () => {
  const { stream, projection, eventsTable, streamArn } = await setUp('otel-feed');
  const placed = await appendTraced(stream, 'o-1', [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  telemetry.reset();
  const feed = new ChangeFeedConsumer({
    streamsClient: streams,
    streamArn,
    consumer: 'views',
    checkpoints: new MemoryCheckpointStore(),
    ...localFeed,
  });
  await runChangeFeed(feed, { projections: { summaries: projection }, stopWhenCaughtUp: true });

  const spans = telemetry.spans();
  const process = onlySpan(spans, `process ${eventsTable}`);
  expect(process.kind).toBe(SpanKind.CONSUMER);
  expect(process.attributes).toMatchObject({
    'messaging.system': 'aws.dynamodb.streams',
    'dynafold.transport': 'feed',
    'messaging.batch.message_count': 1,
  });
  expect(typeof process.attributes['messaging.destination.partition.id']).toBe('string');
  expect(linkTargets(process.links)).toEqual([{ ...placed, attributes: expect.objectContaining({ 'dynafold.event.versions': [1] }) }]);
  expect(parentOf(onlySpan(spans, 'writeRow Order->OrderSummary'))).toBe(process.spanContext().spanId);

  const recorded = await telemetry.metrics();
  expect(counted(recorded.get('dynafold.records'), { 'dynafold.transport': 'feed' })).toBe(1);
  expect(counted(recorded.get('dynafold.feed.lease.changes'), { 'dynafold.feed.consumer': 'views', 'dynafold.lease.change': 'acquired' })).toBe(1);
  expect(counted(recorded.get('dynafold.feed.lease.changes'), { 'dynafold.feed.consumer': 'views', 'dynafold.lease.change': 'released' })).toBe(1);
  expect(measured(recorded.get('dynafold.feed.iterator_age'), { 'dynafold.feed.consumer': 'views' }).count).toBeGreaterThanOrEqual(1);
});

test('Kinesis records are processed under aws.kinesis', async () => {
  const { stream, projection, eventsTable, streamArn } = await setUp('otel-kinesis');
  const placed = await appendTraced(stream, 'o-1', [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  telemetry.reset();
  const kinesisArn = 'arn:aws:kinesis:ddblocal:000000000000:stream/orders';
  const records = (await readStreamRecords(streamArn)).map((record) => toKinesisRecord(record, { streamArn: kinesisArn, tableName: eventsTable }));
  expect(await kinesisHandler({ projections: { summaries: projection } })({ Records: records })).toEqual({ batchItemFailures: [] });
  const process = onlySpan(telemetry.spans(), `process ${eventsTable}`);
  expect(process.attributes).toMatchObject({ 'messaging.system': 'aws.kinesis', 'dynafold.transport': 'kinesis' });
  expect(linkTargets(process.links).map(({ traceId, spanId }) => ({ traceId, spanId }))).toEqual([placed]);
});

test("the outbox relay publishes each message in a producer span linked to its event's append", async () => {
  const { stream, summaries, streamArn } = await setUp('otel-outbox');
  const outbox = await createTestTable(client, outboxTableDefinition, 'otel-outbox');
  const projection = new Projection({
    stream,
    readModel: summaries,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state: OrderSummary, event: OrderEvent) => evolveSummary(state, event),
    checkpoint: 'version',
    outbox: { table: outbox.name, message: (event: OrderEvent) => ({ type: event.type }) },
  });
  const placed = await appendTraced(stream, 'o-1', [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  await projection.processBatch(lambdaStreamEvent(insertsOnly(await readStreamRecords(streamArn)), { streamArn }).Records);
  telemetry.reset();
  const published: OutboxMessage[] = [];
  const activeInPublish: Array<string | undefined> = [];
  const relay = new OutboxRelay({
    client,
    table: outbox.name,
    publish: async (message) => {
      // The publish runs inside the span: a message bus's client would propagate it.
      activeInPublish.push(trace.getActiveSpan()?.spanContext().spanId);
      published.push(message);
    },
  });
  const { published: count } = await relay.drainAll();
  expect(count).toBe(1);
  expect(published[0]?.trace?.traceparent).toBe(`00-${placed.traceId}-${placed.spanId}-01`);
  const send = onlySpan(telemetry.spans(), 'send Order->OrderSummary');
  expect(send.kind).toBe(SpanKind.PRODUCER);
  expect(activeInPublish).toEqual([send.spanContext().spanId]);
  expect(send.attributes).toMatchObject({
    'messaging.operation.name': 'send',
    'messaging.message.id': 'Order#o-1#1',
    'dynafold.outbox.table': outbox.name,
  });
  expect(linkTargets(send.links)).toEqual([
    { ...placed, attributes: { 'dynafold.stream.name': 'Order', 'dynafold.stream.id': 'o-1', 'dynafold.event.versions': [1] } },
  ]);
});

test('a backfill has a span per segment and none per row; a rebuild a span with its rows as children', async () => {
  const { stream, projection } = await setUp('otel-backfill');
  for (const orderId of ['o-1', 'o-2', 'o-3']) await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: orderId } }]);
  telemetry.reset();
  await projection.backfill({ segments: 2 });
  let spans = telemetry.spans();
  const backfill = spansNamed(spans, 'backfill Order->OrderSummary');
  const whole = backfill.filter((span) => span.attributes['dynafold.backfill.segment'] === undefined);
  const segments = backfill.filter((span) => span.attributes['dynafold.backfill.segment'] !== undefined);
  expect(whole).toHaveLength(1);
  expect(segments.map((span) => span.attributes['dynafold.backfill.segment']).sort()).toEqual([0, 1]);
  expect(segments.every((span) => parentOf(span) === whole[0]?.spanContext().spanId)).toBe(true);
  expect(spansNamed(spans, 'writeRow Order->OrderSummary')).toEqual([]);
  const recorded = await telemetry.metrics();
  expect(counted(recorded.get('dynafold.backfill.instances'), { 'dynafold.projection.name': 'Order->OrderSummary' })).toBe(3);
  expect(counted(recorded.get('dynafold.backfill.events'), { 'dynafold.projection.name': 'Order->OrderSummary' })).toBe(3);

  telemetry.reset();
  await projection.rebuild({ orderId: 'o-1' });
  spans = telemetry.spans();
  const rebuild = onlySpan(spans, 'rebuild Order->OrderSummary');
  expect(rebuild.attributes).toMatchObject({ 'dynafold.stream.id': 'o-1', 'db.operation.name': 'rebuild' });
  expect(parentOf(onlySpan(spans, 'writeRow Order->OrderSummary'))).toBe(rebuild.spanContext().spanId);
});

test('a row parked is an event on the batch span, and its replay a span of its own', async () => {
  const { stream, summaries, streamArn, eventsTable } = await setUp('otel-park');
  let broken = true;
  const projection = new Projection({
    stream,
    readModel: summaries,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state: OrderSummary, event: OrderEvent) => {
      if (broken) throw new Error('not yet');
      return evolveSummary(state, event);
    },
    checkpoint: 'version',
    poison: { park: { afterAttempts: 1 } },
    // Parking is logged; the test reads it from the span instead.
    logger: {},
  });
  await stream.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  telemetry.reset();
  const records = lambdaStreamEvent(insertsOnly(await readStreamRecords(streamArn)), { streamArn }).Records;
  expect((await projection.processBatch(records, { logger: false })).response).toEqual({ batchItemFailures: [] });
  const process = onlySpan(telemetry.spans(), `process ${eventsTable}`);
  expect(process.events.map((event) => [event.name, event.attributes?.['dynafold.row.key'], event.attributes?.['exception.message']])).toEqual([
    ['dynafold.row.parked', JSON.stringify({ orderId: 'o-1' }), 'not yet'],
  ]);
  expect(counted((await telemetry.metrics()).get('dynafold.rows.parked'))).toBe(1);

  broken = false;
  telemetry.reset();
  const [replayed] = await projection.retryParked();
  expect(replayed?.status).toBe('applied');
  const spans = telemetry.spans();
  const replay = onlySpan(spans, 'replay Order->OrderSummary');
  expect(replay.status.code).toBe(SpanStatusCode.UNSET);
  expect(replay.attributes).toMatchObject({ 'dynafold.row.key': JSON.stringify({ orderId: 'o-1' }), 'dynafold.replay.skip': false });
  expect(parentOf(onlySpan(spans, 'writeRow Order->OrderSummary'))).toBe(replay.spanContext().spanId);
});
