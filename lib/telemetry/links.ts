import type { Link, SpanContext } from '@opentelemetry/api';
import type { OtelApi } from './otel-api';
import { TRACEPARENT, type TraceContext } from './trace-context';
import { Attr } from './names';

/** W3C Trace Context: a tracestate of more than 512 characters may be dropped whole. */
const TRACESTATE_MAX = 512;

/** The trace context of the active span, or `undefined` without one (no SDK registered, or no span active). */
export function activeTraceContext(api: OtelApi): TraceContext | undefined {
  const context = api.trace.getActiveSpan()?.spanContext();
  if (context === undefined || !api.isSpanContextValid(context)) return undefined;
  const traceparent = `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const tracestate = context.traceState?.serialize();
  return tracestate === undefined || tracestate === '' || tracestate.length > TRACESTATE_MAX ? { traceparent } : { traceparent, tracestate };
}

/** The span context a stored trace context names, as a remote parent; `undefined` for a malformed one. */
export function spanContextOf(api: OtelApi, trace: TraceContext): SpanContext | undefined {
  const match = TRACEPARENT.exec(trace.traceparent);
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
    ...(trace.tracestate === undefined ? {} : { traceState: api.createTraceState(trace.tracestate) }),
  };
  return api.isSpanContextValid(context) ? context : undefined;
}

/** What a link says of the events it stands for: their stream instance and versions. */
export interface LinkedEvents {
  readonly streamName: string;
  readonly streamId: string;
  readonly versions: number[];
}

/**
 * One link per distinct trace context among `events` (an append's events share one), in the order they
 * come, each naming the stream instance and the versions it stands for. Events without a context, or
 * with a malformed one, are left out.
 */
export function linksOf(
  api: OtelApi,
  events: Iterable<{ readonly streamName: string; readonly streamId: string; readonly version: number; readonly trace?: TraceContext | undefined }>,
): Link[] {
  const byParent = new Map<string, { context: SpanContext; linked: LinkedEvents } | null>();
  for (const event of events) {
    const trace = event.trace;
    if (trace === undefined) continue;
    const key = `${trace.traceparent}|${event.streamName}#${event.streamId}`;
    let entry = byParent.get(key);
    if (entry === undefined) {
      const context = spanContextOf(api, trace);
      entry = context === undefined ? null : { context, linked: { streamName: event.streamName, streamId: event.streamId, versions: [] } };
      byParent.set(key, entry);
    }
    if (entry !== null && !entry.linked.versions.includes(event.version)) entry.linked.versions.push(event.version);
  }
  const links: Link[] = [];
  for (const entry of byParent.values()) {
    if (entry === null) continue;
    const { streamName, streamId, versions } = entry.linked;
    links.push({
      context: entry.context,
      attributes: { [Attr.streamName]: streamName, [Attr.streamId]: streamId, [Attr.eventVersions]: versions.sort((a, b) => a - b) },
    });
  }
  return links;
}
