import { DynafoldError } from '../errors';
import { linksOf, type LinkableEvent } from './links';
import { Attr } from './names';
import { activeRole, activeSpan, activeTraceContext, otelReady, startSpan, tracing, type AttributeMap, type OtelSpan } from './port';
import { recordedException } from './recorded-exception';
import type { TraceContext } from './trace-context';

export type { LinkableEvent } from './links';

/** A value a span attribute takes; `undefined` leaves the attribute out. */
export type AttributeValue = string | number | boolean | ReadonlyArray<string> | ReadonlyArray<number> | undefined;
export type SpanAttributes = Readonly<Record<string, AttributeValue>>;

/**
 * What the rows written inside a span are. `bulk`: a backfill's, far too many for a span each, so none
 * gets one (the segment's span counts them). Other spans leave it unset.
 */
export type SpanRole = 'bulk';

/** A span to start around an operation. */
export interface SpanSpec {
  readonly name: string;
  readonly kind: 'client' | 'consumer' | 'producer' | 'internal';
  readonly attributes?: SpanAttributes | undefined;
  readonly role?: SpanRole | undefined;
}

/**
 * The span of an operation, as the operation sees it: a no-op when no SDK is registered (or the span is
 * not sampled), so callers never ask. `recording` tells whether anything costly is worth computing. No
 * method throws, whatever the app's SDK does.
 */
export interface TracedSpan {
  readonly recording: boolean;
  set(attributes: SpanAttributes): void;
  event(name: string, attributes?: SpanAttributes): void;
  /**
   * Links the span to the trace context stored with each event: one link per append (per distinct
   * stored context), however many of its events come and however many calls bring them.
   */
  link(events: Iterable<LinkableEvent>): void;
  /** Marks the span failed, for an outcome that is a failure without a throw. */
  fail(error: unknown): void;
}

const NO_SPAN: TracedSpan = { recording: false, set: () => undefined, event: () => undefined, link: () => undefined, fail: () => undefined };

/** The span of each batch a transport started, with its spec, which `processBatch` inside it takes as its own. */
const processSpans = new WeakMap<OtelSpan, { readonly traced: TracedSpan; readonly spec: SpanSpec }>();

/**
 * Runs `fn` inside a span (the active span while it runs, so the spans and requests it makes are its
 * children); a throw is recorded on the span (its `DynafoldError` code as `error.type`) and rethrown.
 * Without `@opentelemetry/api`, or when the app's SDK fails to start the span, `fn` runs alone. `spec` may
 * be a function, called only when a span is started: the hot paths build no attributes nobody reads.
 */
export async function inSpan<T>(spec: SpanSpec | (() => SpanSpec), fn: (span: TracedSpan) => Promise<T> | T): Promise<T> {
  const ready = otelReady();
  if (ready !== undefined) await ready;
  if (!tracing()) return fn(NO_SPAN);
  return run(typeof spec === 'function' ? spec() : spec, fn);
}

/**
 * Runs `fn` inside the process span of a batch: the one a transport started around it with this same
 * function (then `fn` is told that span's spec, which names the transport), or a new one.
 */
export async function inProcessSpan<T>(spec: SpanSpec, fn: (span: TracedSpan, started: SpanSpec) => Promise<T> | T): Promise<T> {
  const ready = otelReady();
  if (ready !== undefined) await ready;
  if (!tracing()) return fn(NO_SPAN, spec);
  const active = activeSpan();
  const started = active === undefined ? undefined : processSpans.get(active);
  if (started !== undefined) return fn(started.traced, started.spec);
  return run(spec, (span) => fn(span, spec), spec);
}

/**
 * Runs `fn` inside a child span of the active span, when that one records: the spans of a row's writes,
 * which a call makes many of, cost nothing where their parent is not traced (no SDK, not sampled, a
 * backfill's rows). `spec` is only made then.
 */
export async function inChildSpan<T>(spec: () => SpanSpec, fn: (span: TracedSpan) => Promise<T> | T): Promise<T> {
  if (!tracing() || activeSpan()?.isRecording() !== true || activeRole() === 'bulk') return fn(NO_SPAN);
  return run(spec(), fn);
}

async function run<T>(spec: SpanSpec, fn: (span: TracedSpan) => Promise<T> | T, process?: SpanSpec): Promise<T> {
  const started = startSpan({ name: spec.name, kind: spec.kind, attributes: defined(spec.attributes), role: spec.role });
  if (started === undefined) return fn(NO_SPAN);
  const { span } = started;
  const traced = tracedSpan(span);
  if (process !== undefined) processSpans.set(span, { traced, spec: process });
  return started.within(async () => {
    try {
      return await fn(traced);
    } catch (error) {
      traced.fail(error);
      throw error;
    } finally {
      span.end();
    }
  });
}

function tracedSpan(span: OtelSpan): TracedSpan {
  if (!span.isRecording()) return NO_SPAN;
  let failed = false;
  const linked = new Set<string>();
  return {
    recording: true,
    set: (attributes) => span.setAttributes(defined(attributes)),
    event: (name, attributes) => span.addEvent(name, defined(attributes)),
    link: (events) => {
      const links = linksOf(events, linked);
      for (const { key } of links) linked.add(key);
      if (links.length > 0) span.addLinks(links);
    },
    // The first failure is the one to tell: a throw passed on after it was recorded is not recorded again.
    fail: (error) => {
      if (failed) return;
      failed = true;
      // Its message cut short (see `recordedException`): a trace backend keeps what the key table forgets.
      span.fail(recordedException(error), defined(errorTypeOf(error)));
    },
  };
}

/** `error.type` of a failure (a `DynafoldError`'s code, else the error's name), and the code alone as `dynafold.error.code`. */
function errorTypeOf(error: unknown): SpanAttributes {
  const code = error instanceof DynafoldError ? error.code : undefined;
  return { [Attr.errorType]: code ?? (error instanceof Error ? error.name : typeof error), [Attr.errorCode]: code };
}

/** The error attributes of a failure, for a span event. */
export function errorAttributes(error: unknown): SpanAttributes {
  return { ...errorTypeOf(error), 'exception.message': recordedException(error).message };
}

/** The attributes with a value (OpenTelemetry drops `undefined` ones with a warning). */
function defined(attributes: SpanAttributes | undefined): AttributeMap {
  const out: AttributeMap = {};
  if (attributes === undefined) return out;
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? ([...(value as ReadonlyArray<string | number>)] as string[] | number[]) : (value as string | number | boolean);
  }
  return out;
}

/**
 * The trace context of the active span, to store with an append's events: `undefined` without the API,
 * or without a valid span (no SDK registered, no span active).
 */
export function currentTraceContext(): TraceContext | undefined {
  return activeTraceContext();
}

/** Adds an event to the active span, when it records (an append's conflict, a command's retry, a row parked). */
export function spanEvent(name: string, attributes?: SpanAttributes): void {
  const span = activeSpan();
  if (span?.isRecording() === true) span.addEvent(name, defined(attributes));
}
