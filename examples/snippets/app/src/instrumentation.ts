// Preloaded before the service (node --import): an ES module's imports
// run before its first line, so the instrumentations must be in place
// before the app imports what they instrument.
import { FastifyOtelInstrumentation } from '@fastify/otel';
import * as instrumentation from '@opentelemetry/instrumentation';
import * as http from '@opentelemetry/instrumentation-http';
import { ConsoleMetricExporter } from '@opentelemetry/sdk-metrics';
import { ConsoleSpanExporter } from '@opentelemetry/sdk-trace';
import { registerTelemetry } from './telemetry.js';

const telemetry = registerTelemetry(
  'orders-api',
  new ConsoleSpanExporter(),
  new ConsoleMetricExporter(),
);
instrumentation.registerInstrumentations({
  instrumentations: [
    // A span per request: dynafold's spans are its children.
    new http.HttpInstrumentation(),
    // A span per route and hook, from the Fastify authors.
    new FastifyOtelInstrumentation({ registerOnInitialization: true }),
  ],
});
// Ctrl-C or a stop: what is still buffered goes, then the process ends.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    void telemetry.shutdown().finally(() => process.exit(0));
  });
