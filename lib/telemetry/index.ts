// Traces and metrics through `@opentelemetry/api`, an optional peer dependency looked for on first use:
// spans around the operations (spans), the trace context an append stores with its events and the links
// to it (trace-context, links), the capacity a traced operation's requests consume (capacity), and the
// metrics (metrics), under the names of one table (names). Every call into the API goes through one port
// (port), which keeps whatever the app's SDK throws from reaching an operation. Without the API, or with
// no SDK registered, every function here costs a variable read and records nothing.
export { Attr, DB_SYSTEM, MessagingSystem, Metrics, SpanEvents } from './names';
export type { MetricDefinition, MetricKind } from './names';
export { storedTraceContext, traceContextBytes } from './trace-context';
export type { TraceContext } from './trace-context';
export { currentTraceContext, errorAttributes, inChildSpan, inProcessSpan, inSpan, spanEvent } from './spans';
export { keyText, processSpan, projectionSpan, publishSpan, rowSpan, streamSpan } from './operation-spans';
export type { Transport } from './operation-spans';
export type { AttributeValue, LinkableEvent, SpanAttributes, SpanRole, SpanSpec, TracedSpan } from './spans';
export { withCapacity } from './capacity';
export { countAppend, countBackfill, countConflict, countLeaseChange, metricsActive, recordBatch, recordIteratorAge, recordLag } from './metrics';
export type { BatchFigures, ProjectionFigures } from './metrics';
export { flushRecorded } from './port';
