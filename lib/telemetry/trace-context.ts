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

/** A W3C `traceparent` of version 00: trace id, span id and flags in lowercase hex. */
export const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Bytes of a stored context before its tracestate: the version (0), the trace id (16), the span id (8), the flags (1). */
const HEAD_BYTES = 26;

/**
 * A trace context as a commit stores it: one binary attribute of the traceparent's fields (26 bytes, where
 * the header's text takes 55 and a map of it 70), then the tracestate's UTF-8 when there is one. Every
 * read and stream record carries it, so it is kept small. `undefined` for a traceparent that is none.
 */
export function traceContextBytes(trace: TraceContext): Uint8Array | undefined {
  const match = TRACEPARENT.exec(trace.traceparent);
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = ''] = match;
  const head = Buffer.from(`00${traceId}${spanId}${flags}`, 'hex');
  return trace.tracestate === undefined ? head : Buffer.concat([head, Buffer.from(trace.tracestate, 'utf8')]);
}

/** Each byte's two lowercase hex digits: the decode turns 25 bytes into text on every commit read, without a Buffer. */
const HEX = Array.from({ length: 256 }, (_unused, byte) => byte.toString(16).padStart(2, '0'));

function hex(bytes: Uint8Array, from: number, to: number): string {
  let text = '';
  for (let index = from; index < to; index++) text += HEX[bytes[index] as number];
  return text;
}

/**
 * The trace context a stored attribute holds (see {@link traceContextBytes}), or `undefined` for none or
 * one no append writes: telemetry never fails a read, so a damaged context is dropped, not reported.
 */
export function storedTraceContext(value: unknown): TraceContext | undefined {
  if (!(value instanceof Uint8Array) || value.length < HEAD_BYTES || value[0] !== 0) return undefined;
  const traceparent = `00-${hex(value, 1, 17)}-${hex(value, 17, 25)}-${hex(value, 25, HEAD_BYTES)}`;
  return value.length === HEAD_BYTES ? { traceparent } : { traceparent, tracestate: Buffer.from(value.subarray(HEAD_BYTES)).toString('utf8') };
}
