import type { Context, Span, SpanKind } from '@opentelemetry/api';
import { DynafoldError } from '../errors';
import { activeTraceContext, linksOf } from './links';
import { Attr } from './names';
import { otel, otelReady, type OtelApi } from './otel-api';
import { recordedException } from './recorded-exception';
import type { TraceContext } from './trace-context';

/** A value a span attribute takes; `undefined` leaves the attribute out. */
export type AttributeValue = string | number | boolean | ReadonlyArray<string> | ReadonlyArray<number> | undefined;
export type SpanAttributes = Readonly<Record<string, AttributeValue>>;

/** An event a span can link to: the trace context its append stored, if any. */
export interface LinkableEvent {
  readonly streamName: string;
  readonly streamId: string;
  readonly version: number;
  readonly trace?: TraceContext | undefined;
}

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
 * not sampled), so callers never ask. `recording` tells whether anything costly is worth computing.
 */
export interface TracedSpan {
  readonly recording: boolean;
  set(attributes: SpanAttributes): void;
  event(name: string, attributes?: SpanAttributes): void;
  /** Links the span to the trace context stored with each event (one link per append). */
  link(events: Iterable<LinkableEvent>): void;
  /** Marks the span failed, for an outcome that is a failure without a throw. */
  fail(error: unknown): void;
}

const NO_SPAN: TracedSpan = { recording: false, set: () => undefined, event: () => undefined, link: () => undefined, fail: () => undefined };

const TRACER = 'dynafold';

/** The span of each batch a transport started, with its spec, which `processBatch` inside it takes as its own. */
const processSpans = new WeakMap<Span, { readonly traced: TracedSpan; readonly spec: SpanSpec }>();
const roleKeys = new WeakMap<OtelApi, symbol>();

/**
 * Runs `fn` inside a span (the active span while it runs, so the spans and requests it makes are its
 * children); a throw is recorded on the span (its `DynafoldError` code as `error.type`) and rethrown.
 * Without `@opentelemetry/api`, `fn` runs alone.
 */
export async function inSpan<T>(spec: SpanSpec, fn: (span: TracedSpan) => Promise<T> | T): Promise<T> {
  const ready = otelReady();
  if (ready !== undefined) await ready;
  const api = otel();
  if (api === undefined) return fn(NO_SPAN);
  return run(api, spec, fn);
}

/**
 * Runs `fn` inside the process span of a batch: the one a transport started around it with this same
 * function (then `fn` is told that span's spec, which names the transport), or a new one.
 */
export async function inProcessSpan<T>(spec: SpanSpec, fn: (span: TracedSpan, started: SpanSpec) => Promise<T> | T): Promise<T> {
  const ready = otelReady();
  if (ready !== undefined) await ready;
  const api = otel();
  if (api === undefined) return fn(NO_SPAN, spec);
  const active = api.trace.getActiveSpan();
  const started = active === undefined ? undefined : processSpans.get(active);
  if (started !== undefined) return fn(started.traced, started.spec);
  return run(api, spec, (span) => fn(span, spec), spec);
}

/**
 * Runs `fn` inside a child span of the active span, when that one records: the spans of a row's writes,
 * which a call makes many of, cost nothing where their parent is not traced (no SDK, not sampled, a
 * backfill's rows).
 */
export async function inChildSpan<T>(spec: SpanSpec, fn: (span: TracedSpan) => Promise<T> | T): Promise<T> {
  const api = otel();
  if (api === undefined) return fn(NO_SPAN);
  const parent = api.context.active();
  if (api.trace.getSpan(parent)?.isRecording() !== true || parent.getValue(roleKey(api)) === 'bulk') return fn(NO_SPAN);
  return run(api, spec, fn);
}

async function run<T>(api: OtelApi, spec: SpanSpec, fn: (span: TracedSpan) => Promise<T> | T, process?: SpanSpec): Promise<T> {
  const parent = api.context.active();
  const span = api.trace.getTracer(TRACER).startSpan(spec.name, { kind: kindOf(api, spec.kind), attributes: defined(spec.attributes) }, parent);
  const traced = tracedSpan(api, span);
  if (process !== undefined) processSpans.set(span, { traced, spec: process });
  let context: Context = api.trace.setSpan(parent, span);
  if (spec.role !== undefined) context = context.setValue(roleKey(api), spec.role);
  return api.context.with(context, async () => {
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

function tracedSpan(api: OtelApi, span: Span): TracedSpan {
  if (!span.isRecording()) return NO_SPAN;
  let failed = false;
  return {
    recording: true,
    set: (attributes) => void span.setAttributes(defined(attributes)),
    event: (name, attributes) => void span.addEvent(name, defined(attributes)),
    link: (events) => {
      const links = linksOf(api, events);
      // addLinks came with API 1.9; an older SDK's span may lack it.
      if (links.length > 0 && typeof span.addLinks === 'function') span.addLinks(links);
    },
    // The first failure is the one to tell: a throw passed on after it was recorded is not recorded again.
    fail: (error) => {
      if (failed) return;
      failed = true;
      failSpan(api, span, error);
    },
  };
}

/**
 * Records a failure on a span: the exception (its message cut short, see `recordedException`), `error.type`
 * (a `DynafoldError`'s code, else the error's name) and the status.
 */
function failSpan(api: OtelApi, span: Span, error: unknown): void {
  const code = error instanceof DynafoldError ? error.code : undefined;
  const name = error instanceof Error ? error.name : typeof error;
  const exception = recordedException(error);
  span.recordException(exception);
  span.setAttributes({ [Attr.errorType]: code ?? name, ...(code === undefined ? {} : { [Attr.errorCode]: code }) });
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: exception.message });
}

/** The error attributes of a failure, for a span event. */
export function errorAttributes(error: unknown): SpanAttributes {
  const code = error instanceof DynafoldError ? error.code : undefined;
  return {
    [Attr.errorType]: code ?? (error instanceof Error ? error.name : typeof error),
    [Attr.errorCode]: code,
    'exception.message': recordedException(error).message,
  };
}

function kindOf(api: OtelApi, kind: SpanSpec['kind']): SpanKind {
  switch (kind) {
    case 'client':
      return api.SpanKind.CLIENT;
    case 'consumer':
      return api.SpanKind.CONSUMER;
    case 'producer':
      return api.SpanKind.PRODUCER;
    default:
      return api.SpanKind.INTERNAL;
  }
}

function roleKey(api: OtelApi): symbol {
  let key = roleKeys.get(api);
  if (key === undefined) {
    key = api.createContextKey('dynafold.role');
    roleKeys.set(api, key);
  }
  return key;
}

/** The attributes with a value (OpenTelemetry drops `undefined` ones with a warning). */
function defined(attributes: SpanAttributes | undefined): Record<string, string | number | boolean | string[] | number[]> {
  const out: Record<string, string | number | boolean | string[] | number[]> = {};
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
  const api = otel();
  return api === undefined ? undefined : activeTraceContext(api);
}

/** Adds an event to the active span, when it records (an append's conflict, a command's retry, a row parked). */
export function spanEvent(name: string, attributes?: SpanAttributes): void {
  const api = otel();
  if (api === undefined) return;
  const span = api.trace.getActiveSpan();
  if (span?.isRecording() === true) span.addEvent(name, defined(attributes));
}
