/**
 * With `@opentelemetry/api` installed but no SDK registered (the app does not use OpenTelemetry), nothing
 * is recorded and nothing changes: commits store no trace context, events carry none, every path works.
 * An SDK made but not registered is the witness: it must see no span and no measurement.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { lambdaHandler, type BatchMetrics } from 'dynafold/lambda';
import { lambdaStreamEvent } from '../fixtures/dynamodb-stream-event';
import { createTestTable, testClient } from '../support/dynamo';
import { orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream } from '../support/orders';
import { insertsOnly, readStreamRecords } from '../support/stream-records';

class UnregisteredReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const client = testClient();
const exporter = new InMemorySpanExporter();
const unregistered = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const reader = new UnregisteredReader();
const meters = new MeterProvider({ readers: [reader] });
afterAll(async () => {
  client.destroy();
  await unregistered.shutdown();
  await meters.shutdown();
});

test('with no SDK registered, appends store no trace context, events carry none, batches project, and nothing is recorded', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'otel-none-events');
  const stream = orderStream(client, events.name);
  const views = await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'otel-none-views');
  const summaries = orderSummaries(client, views.name);
  const { events: appended } = await stream.append({ orderId: 'o-1' }, [
    { type: 'OrderPlaced', data: { customer: 'ada' } },
    { type: 'ItemAdded', data: { sku: 'pen', price: 2 } },
  ]);
  expect(appended.every((event) => !('trace' in event))).toBe(true);
  const stored = await client.send(new GetItemCommand({ TableName: events.name, Key: { pk: { S: 'Order#o-1' }, sk: { S: 'e#0000000001' } } }));
  expect(Object.keys(unmarshall(stored.Item ?? {})).sort()).toEqual(['_df', 'ap', 'count', 'events', 'pk', 'sk', 'ts']);
  const read = await stream.read({ orderId: 'o-1' });
  expect(read.every((event) => !('trace' in event))).toBe(true);
  await stream.execute({ orderId: 'o-1' }, { initial: 0, evolve: (count) => count + 1, decide: () => [{ type: 'OrderShipped', data: {} }] });

  const figures: BatchMetrics[] = [];
  const handler = lambdaHandler({ projections: { summaries: orderSummaryProjection(stream, summaries) }, onMetrics: (m) => figures.push(m) });
  const event = lambdaStreamEvent(insertsOnly(await readStreamRecords(events.streamArn as string)), { streamArn: events.streamArn as string });
  expect(await handler(event)).toEqual({ batchItemFailures: [] });
  expect(await summaries.get({ orderId: 'o-1' })).toMatchObject({ status: 'shipped', items: 1, version: 3 });
  // onMetrics is told as before.
  expect(figures.map((m) => m.eventsApplied)).toEqual([3]);

  expect(trace.getActiveSpan()).toBeUndefined();
  expect(exporter.getFinishedSpans()).toEqual([]);
  const { resourceMetrics } = await reader.collect();
  expect(resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)).toEqual([]);
});

test('with no SDK registered, an operation starts no span: the API is not asked for a tracer, and no span of dynafold is active in its callbacks', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'otel-none-free');
  const stream = orderStream(client, events.name);
  const provider = trace.getTracerProvider();
  const asked = jest.spyOn(provider, 'getTracer');
  try {
    const active: unknown[] = [];
    await stream.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }], { expectedVersion: 0 });
    await stream.execute(
      { orderId: 'o-1' },
      { initial: 0, evolve: (count) => count + 1, decide: () => (active.push(trace.getActiveSpan()), [{ type: 'OrderShipped', data: {} }]) },
    );
    await stream.load({ orderId: 'o-1' }, { initial: 0, evolve: (count) => count + 1 });
    expect(asked).not.toHaveBeenCalled();
    expect(active).toEqual([undefined]);
  } finally {
    asked.mockRestore();
  }
});
