/**
 * A Lambda function is frozen once it answers: the handlers send what the app's SDK buffered (spans in a
 * BatchSpanProcessor, measurements in a periodic reader) before answering, within the time reserve, and
 * never fail or hang on the SDK's account. dynafold's spans and instruments name their scope's version.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { Projection, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { lambdaHandler } from 'dynafold/lambda';
import { lambdaStreamEventOf } from '../fixtures/dynamodb-stream-event';
import { createTestTable, testClient } from '../support/dynamo';
import { evolveSummary, initialSummary, orderSummaries } from '../support/order-projection';
import { orderStream } from '../support/orders';

const HOUR = 3_600_000;
const { version } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
const client = testClient();
let streamArn: string;
let projection: Projection<ReturnType<typeof orderStream>, ReturnType<typeof orderSummaries>, ReturnType<typeof initialSummary>>;

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'flush-events');
  streamArn = events.streamArn as string;
  const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'flush-views')).name;
  const orders = orderStream(client, events.name);
  projection = new Projection({
    name: 'order-summaries',
    stream: orders,
    readModel: orderSummaries(client, views),
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => evolveSummary(state, event),
    checkpoint: 'version',
  });
  await orders.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
});
afterAll(() => client.destroy());

/** An SDK as a Lambda function registers one: spans batched, metrics read every hour, so only a flush sends them now. */
function register(extra: SpanProcessor[] = []) {
  const spans = new InMemorySpanExporter();
  const measures = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const tracerProvider = new TracerProvider({
    spanProcessors: [new BatchSpanProcessor({ exporter: spans, scheduledDelayMillis: HOUR }), ...extra],
  });
  const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: measures, exportIntervalMillis: HOUR })] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans,
    measures,
    shutdown: async () => {
      trace.disable();
      metrics.disable();
      context.disable();
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/** Lambda's context: plenty of time left. */
const lambdaContext = { getRemainingTimeInMillis: () => 60_000 };

test("the handler sends the invocation's spans and measurements before it answers, under dynafold's scope and version", async () => {
  const sdk = register();
  try {
    await lambdaHandler({ projections: [projection], logger: false })(await lambdaStreamEventOf(streamArn), lambdaContext);
    const names = sdk.spans.getFinishedSpans().map((span) => span.name);
    expect(names).toEqual(expect.arrayContaining(['writeRow order-summaries', expect.stringMatching(/^process /)]));
    for (const span of sdk.spans.getFinishedSpans()) expect(span.instrumentationScope).toMatchObject({ name: 'dynafold', version });
    const scopes = sdk.measures.getMetrics().flatMap((exported) => exported.scopeMetrics.map((scope) => scope.scope));
    expect(scopes).toContainEqual(expect.objectContaining({ name: 'dynafold', version }));
  } finally {
    await sdk.shutdown();
  }
});

test('flushTelemetry: false leaves them to the SDK', async () => {
  const sdk = register();
  try {
    await lambdaHandler({ projections: [projection], logger: false, flushTelemetry: false })(await lambdaStreamEventOf(streamArn), lambdaContext);
    expect(sdk.spans.getFinishedSpans()).toEqual([]);
    expect(sdk.measures.getMetrics()).toEqual([]);
  } finally {
    await sdk.shutdown();
  }
});

test('a flush that never ends is waited for no longer than the time reserve; one that fails is told once and the batch still answers', async () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const hanging: SpanProcessor = {
    onStart: () => undefined,
    onEnd: () => undefined,
    forceFlush: () => new Promise<void>(() => undefined),
    shutdown: () => Promise.resolve(),
  };
  const failing: SpanProcessor = { ...hanging, forceFlush: () => Promise.reject(new Error('exporter down')) };
  try {
    for (const processor of [hanging, failing]) {
      const sdk = register([processor]);
      try {
        const started = Date.now();
        const answer = await lambdaHandler({ projections: [projection], logger: false, timeReserveMs: 300 })(
          await lambdaStreamEventOf(streamArn),
          lambdaContext,
        );
        expect(answer).toEqual({ batchItemFailures: [] });
        // The reserve, and the batch itself: far from the hour the processors would wait.
        expect(Date.now() - started).toBeLessThan(30_000);
      } finally {
        await sdk.shutdown();
      }
    }
    // The SDK's own words for it (its tracer provider gathers its processors' failures), told once.
    const told = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as { otelCall?: string });
    const flushes = told.filter((entry) => entry.otelCall === 'flush what was recorded');
    expect(flushes).toHaveLength(1);
    expect(JSON.stringify(flushes[0])).toContain('exporter down');
  } finally {
    warn.mockRestore();
  }
});
