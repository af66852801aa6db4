// The app's OpenTelemetry SDK (`src/telemetry.ts`), registered once,
// before anything is traced. dynafold finds it through
// @opentelemetry/api: it needs no option of its own.
// #region register
import { context, metrics, trace } from '@opentelemetry/api';
import * as hooks from '@opentelemetry/context-async-hooks';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  TracerProvider,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';

export function registerTelemetry(
  spans: SpanExporter,
  measures: PushMetricExporter,
) {
  const tracerProvider = new TracerProvider({
    spanProcessors: [new BatchSpanProcessor({ exporter: spans })],
  });
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({ exporter: measures }),
    ],
  });
  // Carries the active span across awaits: without it, no span
  // would have a parent.
  context.setGlobalContextManager(
    new hooks.AsyncLocalStorageContextManager().enable(),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    /** Sends what is buffered (a Lambda freezes after returning). */
    flush: () =>
      Promise.all([
        tracerProvider.forceFlush(),
        meterProvider.forceFlush(),
      ]),
  };
}
// #endregion register
