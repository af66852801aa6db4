import { TRACEPARENT, type TraceContext } from './trace-context';
import { Attr } from './names';
import type { StoredLink } from './port';

/** An event a span can link to: the trace context its append stored, if any. */
export interface LinkableEvent {
  readonly streamName: string;
  readonly streamId: string;
  readonly version: number;
  readonly trace?: TraceContext | undefined;
}

/** The key of one append's link: its stored context (an append writes one stream instance). */
export function linkKey(event: LinkableEvent & { readonly trace: TraceContext }): string {
  return `${event.trace.traceparent}|${event.trace.tracestate ?? ''}|${event.streamName}#${event.streamId}`;
}

/**
 * One link per distinct stored trace context among `events` (an append's events share one), in the order
 * they first come, each naming the stream instance and the versions it stands for; contexts whose key is
 * in `skip` (linked already) are left out, as are events without a context or with one that names no
 * span (not a W3C traceparent, or an id of zeros).
 */
export function linksOf(events: Iterable<LinkableEvent>, skip: ReadonlySet<string> = new Set()): Array<StoredLink & { readonly key: string }> {
  const byKey = new Map<string, { trace: TraceContext; streamName: string; streamId: string; versions: number[] }>();
  for (const event of events) {
    const trace = event.trace;
    if (trace === undefined || !namesSpan(trace)) continue;
    const key = linkKey({ ...event, trace });
    if (skip.has(key)) continue;
    let entry = byKey.get(key);
    if (entry === undefined) {
      entry = { trace, streamName: event.streamName, streamId: event.streamId, versions: [] };
      byKey.set(key, entry);
    }
    if (!entry.versions.includes(event.version)) entry.versions.push(event.version);
  }
  return [...byKey].map(([key, { trace, streamName, streamId, versions }]) => ({
    key,
    trace,
    attributes: { [Attr.streamName]: streamName, [Attr.streamId]: streamId, [Attr.eventVersions]: versions.sort((a, b) => a - b) },
  }));
}

/** Whether a stored context names a span: a W3C traceparent of version 00 whose ids are not all zeros. */
function namesSpan(trace: TraceContext): boolean {
  const match = TRACEPARENT.exec(trace.traceparent);
  return match !== null && !/^0+$/.test(match[1] ?? '') && !/^0+$/.test(match[2] ?? '');
}
