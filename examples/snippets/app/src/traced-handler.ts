// The Lambda function of Getting started, traced: deploy this entry
// point instead of src/handler.ts. The console exporters stand in for
// your backend's (OTLP, say).
import { ConsoleMetricExporter } from '@opentelemetry/sdk-metrics';
import { ConsoleSpanExporter } from '@opentelemetry/sdk-trace';
import { registerTelemetry } from './telemetry.js';

// At cold start, before the first invocation.
registerTelemetry(
  'orders-projector',
  new ConsoleSpanExporter(),
  new ConsoleMetricExporter(),
);

// It sends what each invocation recorded before it answers.
export { handler } from './handler.js';
