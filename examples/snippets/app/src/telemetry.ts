// The app's OpenTelemetry SDK, registered once, before anything is
// traced. dynafold finds it through @opentelemetry/api: it needs no
// option of its own.
import { context, metrics, trace } from '@opentelemetry/api';
import * as hooks from '@opentelemetry/context-async-hooks';
import { resourceFromAttributes } from '@opentelemetry/resources';
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
  service: string,
  spans: SpanExporter,
  measures: PushMetricExporter,
) {
  // The service every span and metric comes from (without it:
  // unknown_service:node).
  const resource = resourceFromAttributes({ 'service.name': service });
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor({ exporter: spans })],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({ exporter: measures }),
    ],
  });
  // Carries the active span across awaits: without it, no span would
  // have a parent.
  context.setGlobalContextManager(
    new hooks.AsyncLocalStorageContextManager().enable(),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    /** Sends what is buffered and stops: when the process ends. */
    shutdown: () =>
      Promise.all([
        tracerProvider.shutdown(),
        meterProvider.shutdown(),
      ]),
  };
}
