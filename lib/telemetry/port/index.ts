// The one door between dynafold and OpenTelemetry: only the files of this folder load `@opentelemetry/api`
// (otel-api) or call it, and every call that reaches the app's SDK (span processors, samplers, the context
// manager, metric readers and views) goes through `guarded` (guard), so that nothing the SDK throws
// changes an operation's outcome. Spans and contexts (tracing), instruments (metering).
export { otelInstalled, otelReady } from './otel-api';
export { activeOwnSpan, activeRole, activeSpan, activeTraceContext, startSpan, tracing } from './tracing';
export type { AttributeMap, OtelSpan, SpanStart, StartedSpan, StoredLink } from './tracing';
export { instruments } from './metering';
export { flushRecorded } from './flush';
export type { Instruments, Measure } from './metering';
