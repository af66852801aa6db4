/**
 * An OpenTelemetry SDK registered for a test file, as an app registers one: a tracer provider with the
 * SDK's in-memory span exporter, the AsyncLocalStorage context manager, and a meter provider whose
 * metrics a test collects when it wants them. Jest gives each test file its own globals, so the
 * registration stays in the file that made it.
 */
import { context, metrics, trace, type Attributes, type Context, type HrTime, type Link, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace';
import {
  AggregationType,
  DataPointType,
  MeterProvider,
  MetricReader,
  type HistogramMetricData,
  type MetricData,
  type SumMetricData,
} from '@opentelemetry/sdk-metrics';

/** A reader that collects only when asked. */
class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Telemetry {
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** Forgets the spans ended so far. */
  reset(): void;
  /** The metrics recorded so far (cumulative), by name. */
  metrics(): Promise<Map<string, MetricData>>;
  shutdown(): Promise<void>;
}

/** Registers the SDK globally; `shutdown()` unregisters it. */
export function registerTelemetry(): Telemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(tracerProvider);
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    metrics: async () => {
      const { resourceMetrics } = await reader.collect();
      return new Map(resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => [metric.descriptor.name, metric] as const)));
    },
    shutdown: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      context.disable();
    },
  };
}

/** The spans named `name`. */
export function spansNamed(spans: ReadonlyArray<ReadableSpan>, name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

/** The one span named `name`; fails when there is none or several. */
export function onlySpan(spans: ReadonlyArray<ReadableSpan>, name: string): ReadableSpan {
  const found = spansNamed(spans, name);
  if (found.length !== 1) throw new Error(`Expected one span named ${name}, found ${found.length} among ${spans.map((s) => s.name).join(', ')}`);
  return found[0] as ReadableSpan;
}

/** The parent span's id of a span, if it has one. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** What a link points at and says, for comparisons. */
export function linkTargets(links: ReadonlyArray<Link>): Array<{ traceId: string; spanId: string; attributes: Attributes | undefined }> {
  return links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId, attributes: link.attributes }));
}

/** The trace and span id of a span, as a link to it names them. */
export function idsOf(span: ReadableSpan): Pick<SpanContext, 'traceId' | 'spanId'> {
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/** The sum of a counter's data points whose attributes include `where`. */
export function counted(metric: MetricData | undefined, where: Attributes = {}): number {
  if (metric === undefined || metric.dataPointType !== DataPointType.SUM) return 0;
  return (metric as SumMetricData).dataPoints.filter((point) => matches(point.attributes, where)).reduce((sum, point) => sum + point.value, 0);
}

/** The count of a histogram's measurements whose attributes include `where`. */
export function measured(metric: MetricData | undefined, where: Attributes = {}): { count: number; min: number | undefined } {
  if (metric === undefined || metric.dataPointType !== DataPointType.HISTOGRAM) return { count: 0, min: undefined };
  const points = (metric as HistogramMetricData).dataPoints.filter((point) => matches(point.attributes, where));
  const mins = points.map((point) => point.value.min).filter((min): min is number => min !== undefined);
  return { count: points.reduce((sum, point) => sum + point.value.count, 0), min: mins.length === 0 ? undefined : Math.min(...mins) };
}

function matches(attributes: Attributes, where: Attributes): boolean {
  return Object.entries(where).every(([name, value]) => attributes[name] === value);
}

/** A duration of a span in milliseconds. */
export function durationMs(span: ReadableSpan): number {
  const [seconds, nanos]: HrTime = span.duration;
  return seconds * 1000 + nanos / 1e6;
}

/**
 * Where an app's OpenTelemetry SDK can throw into dynafold's calls: a span processor's `onStart` (the span
 * is never handed back) and `onEnd`, a span's own methods (a processor that wraps them), the context
 * manager's `active` and `with`, the metric reader asked how to aggregate when an instrument is made, and
 * a view's attributes processor run on every measurement.
 */
export type SdkFault = 'spanStart' | 'spanEnd' | 'spanCall' | 'context' | 'instruments' | 'measure';

/** Decides, call by call, whether the SDK throws there. */
export type FaultSchedule = (fault: SdkFault) => boolean;

/** A registered SDK that throws where its schedule says, and counts how often it did. */
export interface FaultyTelemetry {
  /** How many times the SDK threw, by where. */
  readonly thrown: ReadonlyMap<SdkFault, number>;
  shutdown(): Promise<void>;
}

/**
 * The methods of a span an app's code may wrap: all but `end` (which `onEnd` stands for) and
 * `isRecording` (a span that answers it with a throw is never written to, so the others would not be
 * called).
 */
const SPAN_METHODS = [
  'setAttribute',
  'setAttributes',
  'addEvent',
  'addLink',
  'addLinks',
  'recordException',
  'setStatus',
  'updateName',
  'spanContext',
] as const;

/**
 * Registers an SDK whose processor, spans, context manager and metric pipeline throw where `schedule`
 * says (always, by default): the SDK of an app with a broken exporter, a buggy processor or a bad view.
 * `meter` picks what throws on the metrics side: the reader when the instruments are made, or a view on
 * each measurement (a reader's aggregation is not asked once a view matches).
 */
export function registerFaultyTelemetry(schedule: FaultSchedule = () => true, meter: 'instruments' | 'measure' = 'measure'): FaultyTelemetry {
  const thrown = new Map<SdkFault, number>();
  const fail = (fault: SdkFault): void => {
    if (!schedule(fault)) return;
    thrown.set(fault, (thrown.get(fault) ?? 0) + 1);
    throw new Error(`the SDK fails (${fault})`);
  };
  const processor: SpanProcessor = {
    onStart: (span) => {
      fail('spanStart');
      const methods = span as unknown as Record<string, (...args: unknown[]) => unknown>;
      for (const name of SPAN_METHODS) {
        const original = methods[name]?.bind(span);
        if (original === undefined) continue;
        methods[name] = (...args) => {
          fail('spanCall');
          return original(...args);
        };
      }
    },
    onEnd: () => fail('spanEnd'),
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
  const tracerProvider = new TracerProvider({ spanProcessors: [processor] });
  const contextManager = new FaultyContextManager(() => fail('context')).enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(tracerProvider);
  const reader = new TestReader(
    meter === 'instruments'
      ? {
          aggregationSelector: () => {
            fail('instruments');
            return { type: AggregationType.DEFAULT };
          },
        }
      : undefined,
  );
  const views =
    meter === 'measure'
      ? [{ instrumentName: '*', attributesProcessors: [{ process: (attributes: Attributes) => (fail('measure'), attributes) }] }]
      : [];
  const meterProvider = new MeterProvider({ readers: [reader], views });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    thrown,
    shutdown: async () => {
      trace.disable();
      metrics.disable();
      context.disable();
      await meterProvider.shutdown();
    },
  };
}

/** A context manager that throws where it is told to, before it does anything. */
class FaultyContextManager extends AsyncLocalStorageContextManager {
  constructor(private readonly fail: () => void) {
    super();
  }

  override active(): Context {
    this.fail();
    return super.active();
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    this.fail();
    return super.with(context, fn, thisArg, ...args);
  }
}
