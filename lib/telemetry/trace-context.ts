/**
 * The W3C trace context of the span that appended an event (`traceparent`, and `tracestate` when it was
 * set), stored once on its commit and handed to every event read from it. The projector links the spans
 * that apply the event to it, so a tracing UI joins an append to its projection across the stream.
 *
 * @example
 * ```ts
 * const [event] = await OrderEvents.read({ orderId: 'o-1' })
 * console.log(event?.trace?.traceparent) // 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
 * ```
 */
export interface TraceContext {
  /** `00-<trace id>-<span id>-<flags>`, as the W3C Trace Context header carries it. */
  readonly traceparent: string;
  /** The vendors' `tracestate` header, when the span had one. */
  readonly tracestate?: string | undefined;
}

/**
 * The trace context a stored attribute holds, or `undefined` for none or one no append writes: telemetry
 * never fails a read, so a damaged context is dropped, not reported.
 */
export function storedTraceContext(value: unknown): TraceContext | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { traceparent, tracestate } = value as { traceparent?: unknown; tracestate?: unknown };
  if (typeof traceparent !== 'string') return undefined;
  return typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
}
