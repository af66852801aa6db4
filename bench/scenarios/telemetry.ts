import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { DynamoDBRecord } from 'aws-lambda';
import { z } from 'zod';
import { EventStream, Projection, ReadModel, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { itemSize } from '../../lib/dynamo';
import { traceContextBytes } from '../../lib/telemetry';
import { asLambdaRecord, readAllRecords } from '../support/records';
import { clients, createTable } from '../support/local';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { median, nsPerCall } from '../support/stats';

const events = { OrderPlaced: z.object({ customer: z.string() }), ItemAdded: z.object({ sku: z.string(), price: z.number() }) };
const summary = z.object({ orderId: z.string(), customer: z.string(), items: z.number(), version: z.number() });
// As an append stores it (see `traceContextBytes`).
const traceContext = traceContextBytes({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });

/** A commit of `count` ItemAdded events, with the trace context an append stores or without. */
function commit(count: number, withTrace: boolean): Record<string, unknown> {
  const stored = Array.from({ length: count }, (_unused, index) => ({ type: 'ItemAdded', data: { sku: `sku-${index}`, price: 2.5 } }));
  return {
    pk: 'Order#o-1',
    sk: 'e#0000000001',
    _df: 'Order',
    ts: Date.parse('2026-01-01T00:00:00.000Z'),
    ...(count === 1 ? stored[0] : { count, events: stored }),
    ...(withTrace ? { tc: traceContext } : {}),
  };
}

type Variant = 'none' | 'context' | 'sdk';

/** An exporter that drops what it is given: the SDK's work is measured, not a collector's. */
const dropping: SpanExporter = { export: (_spans: ReadableSpan[], done) => done({ code: 0 }), shutdown: async () => undefined };

class IdleReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** Enables the AsyncLocalStorage context manager alone: what carrying a context across awaits costs the whole process. */
function registerContext(): () => Promise<void> {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return async () => void context.disable();
}

/** Registers an SDK as an app would (batching span processor, a meter provider, the AsyncLocalStorage context manager); resolves its shutdown. */
function registerSdk(): () => Promise<void> {
  const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: dropping })] });
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return async () => {
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
    trace.disable();
    metrics.disable();
    context.disable();
  };
}

/**
 * What telemetry costs. Decoding (pure CPU): a commit with the stored trace context against one without
 * (a commit written with no SDK registered has none, and decodes as before). `processBatch` on DynamoDB Local: this process's CPU per event
 * (user + system, DynamoDB Local's own excluded) with no SDK registered and with one (spans, links, row
 * spans and metrics), the two taking turns over fresh rows. And the bytes the context adds to a commit.
 */
export const telemetry: Scenario = {
  name: 'telemetry',
  title: 'What OpenTelemetry costs: decode, processBatch CPU per event, bytes per commit',
  async run(scenario: ScenarioContext): Promise<ScenarioResult> {
    const { client, streams, destroy } = clients(scenario.endpoint);
    try {
      const eventsTable = await createTable(client, eventsTableDefinition, 'otel-events');
      const stream = new EventStream({ client, table: eventsTable.name, name: 'Order', streamId: ['orderId'], events });

      // Decode, in-process.
      const count = scenario.quick ? 20_000 : 200_000;
      const decodeRounds = scenario.quick ? 5 : 11;
      const [plainNs = NaN, tracedNs = NaN, plain10Ns = NaN, traced10Ns = NaN] = nsPerCall(
        [commit(1, false), commit(1, true), commit(10, false), commit(10, true)].map((item) => () => stream.decodeCommit(item)),
        count,
        decodeRounds,
      );

      // processBatch, on DynamoDB Local: one record per append, several orders.
      const orders = scenario.quick ? 100 : 300;
      const perOrder = 3;
      for (let order = 0; order < orders; order++) {
        const orderId = `o-${order}`;
        await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
        for (let item = 1; item < perOrder; item++) await stream.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }]);
      }
      const records: DynamoDBRecord[] = (await readAllRecords(streams, eventsTable.streamArn)).map(asLambdaRecord);
      const views = await createTable(client, (name) => readModelTableDefinition(name, [modelOn(client, name, 'Probe')]), 'otel-views');
      const rounds = scenario.quick ? 4 : 8;
      const cpu: Record<Variant, number[]> = { none: [], context: [], sdk: [] };
      const variants: Variant[] = ['none', 'context', 'sdk'];
      for (let round = 0; round < rounds; round++) {
        // Each round in another order, so that none is favoured by when it runs.
        for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
          const shutdown = variant === 'sdk' ? registerSdk() : variant === 'context' ? registerContext() : undefined;
          const projection = projectionOn(stream, modelOn(client, views.name, `R${round}${variant}`));
          const before = process.cpuUsage();
          const result = await processBatch(records, { projections: [projection], logger: false });
          const used = process.cpuUsage(before);
          if (result.failedRecords.length > 0) throw new Error('telemetry bench: the batch failed records');
          cpu[variant].push((used.user + used.system) / (orders * perOrder));
          await shutdown?.();
        }
      }
      const noneUs = median(cpu.none);
      const contextUs = median(cpu.context);
      const sdkUs = median(cpu.sdk);

      const bytes = (n: number) => itemSize(commit(n, true)) - itemSize(commit(n, false));
      const rows: Row[] = [
        {
          scenario: 'telemetry',
          measure: 'decode a commit of 1 event with a stored context, ns',
          dynafold: tracedNs,
          baseline: plainNs,
          against: 'without one',
          ratio: tracedNs / plainNs,
        },
        {
          scenario: 'telemetry',
          measure: 'decode a commit of 10 events with a stored context, ns per event',
          dynafold: traced10Ns / 10,
          baseline: plain10Ns / 10,
          against: 'without one',
          ratio: traced10Ns / plain10Ns,
        },
        { scenario: 'telemetry', measure: "the stored context's decode, ns per commit", dynafold: tracedNs - plainNs },
        {
          scenario: 'telemetry',
          measure: 'processBatch CPU per event, context manager alone, µs',
          dynafold: contextUs,
          baseline: noneUs,
          against: 'no SDK',
          ratio: contextUs / noneUs,
        },
        {
          scenario: 'telemetry',
          measure: 'processBatch CPU per event with an SDK registered, µs',
          dynafold: sdkUs,
          baseline: noneUs,
          against: 'no SDK',
          ratio: sdkUs / noneUs,
        },
        { scenario: 'telemetry', measure: 'bytes the trace context adds to a commit', dynafold: bytes(1) },
      ];
      const notes = [
        `processBatch over ${orders * perOrder} records (${orders} rows), ${rounds} rounds per variant taking turns; CPU of this process only.`,
      ];
      return { rows, notes, details: { plainNs, tracedNs, plain10Ns, traced10Ns, cpu, bytesPerCommit: bytes(1), bytesPerCommitOf10: bytes(10) } };
    } finally {
      destroy();
    }
  },
};

function modelOn(client: DynamoDBClient, table: string, name: string) {
  return new ReadModel({
    client,
    table,
    name,
    schema: summary,
    key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
  });
}

function projectionOn(stream: EventStream<'Order', readonly ['orderId'], typeof events>, readModel: ReturnType<typeof modelOn>) {
  return new Projection({
    stream,
    readModel,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => ({ orderId: streamId.orderId, customer: '', items: 0, version: 0 }),
    evolve: (row, event) => (event.type === 'OrderPlaced' ? { ...row, customer: event.data.customer } : { ...row, items: row.items + 1 }),
    checkpoint: 'version',
  });
}
