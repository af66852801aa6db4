import type { Context, Link, Span, SpanContext, SpanKind } from '@opentelemetry/api';
import { TRACEPARENT, type TraceContext } from '../trace-context';
import { guarded } from './guard';
import { otel, tracerRegistered, type OtelApi } from './otel-api';
import { SCOPE } from './scope';

/** Attribute values as OpenTelemetry takes them (none `undefined`). */
export type AttributeMap = Record<string, string | number | boolean | string[] | number[]>;

/** A link to the span that stored `trace` (an append's), with what it says of the events it stands for. */
export interface StoredLink {
  readonly trace: TraceContext;
  readonly attributes: AttributeMap;
}

/**
 * A span as dynafold holds it: each method calls into the app's SDK through the guard, so none throws;
 * a call that throws does what it would with no SDK (nothing, or `false`, or no context).
 */
export interface OtelSpan {
  isRecording(): boolean;
  setAttributes(attributes: AttributeMap): void;
  addEvent(name: string, attributes: AttributeMap): void;
  /** Links the span to the spans that stored these contexts (a malformed one is left out). */
  addLinks(links: ReadonlyArray<StoredLink>): void;
  /** Records `error` as the span's exception, adds `attributes` and sets the status `ERROR`. */
  /** Records a failure: the exception as the caller chose to record it (name, message, stack), its attributes, the status. */
  fail(exception: { readonly name: string; readonly message: string; readonly stack?: string }, attributes: AttributeMap): void;
  end(): void;
  /** The span's W3C trace context, `undefined` for an invalid one (a span that is not sampled has one). */
  traceContext(): TraceContext | undefined;
}

/** A span started, and how to run code with it active. */
export interface StartedSpan {
  readonly span: OtelSpan;
  /** Runs `fn` with the span active (so what it starts is a child); `fn`'s own throw or rejection passes through. */
  within<T>(fn: () => T): T;
}

/** What a span to start is. */
export interface SpanStart {
  readonly name: string;
  readonly kind: 'client' | 'consumer' | 'producer' | 'internal';
  readonly attributes: AttributeMap;
  /** A value its context carries to the spans started inside it (see `activeRole`). */
  readonly role?: string | undefined;
}

/** W3C Trace Context: a tracestate of more than 512 characters may be dropped whole. */
const TRACESTATE_MAX = 512;

/** The wrapper of each span met, so that a span found active again is the same `OtelSpan`. */
const wrappers = new WeakMap<Span, OtelSpan>();
/** The spans dynafold started (and so are told of what their requests consume). */
const started = new WeakSet<OtelSpan>();
const roleKeys = new WeakMap<OtelApi, symbol>();

/**
 * Whether spans dynafold starts can record anything: the app has the API and registered a tracer provider
 * (see `tracerRegistered`). When not, callers skip starting spans and computing their attributes.
 */
export function tracing(): boolean {
  const api = otel();
  return api !== undefined && guarded('start a span', false, () => tracerRegistered(api, SCOPE.name));
}

/**
 * Starts a span, a child of the active one; `undefined` without the API or a registered tracer provider, or
 * when the app's SDK threw (its sampler, a span processor's `onStart`): the operation then runs untraced.
 */
export function startSpan(spec: SpanStart): StartedSpan | undefined {
  const api = otel();
  if (api === undefined || !tracing()) return undefined;
  const parent = activeContext(api);
  const raw = guarded('start a span', undefined, () =>
    api.trace.getTracer(SCOPE.name, SCOPE.version).startSpan(spec.name, { kind: kindOf(api, spec.kind), attributes: spec.attributes }, parent),
  );
  if (raw === undefined) return undefined;
  const span = wrap(api, raw);
  started.add(span);
  const context = guarded('run in a span', undefined, () => {
    const withSpan = api.trace.setSpan(parent, raw);
    return spec.role === undefined ? withSpan : withSpan.setValue(roleKey(api), spec.role);
  });
  return { span, within: (fn) => (context === undefined ? fn() : within(api, context, fn)) };
}

/** The active span, if any (the app's or dynafold's); `undefined` without the API. */
export function activeSpan(): OtelSpan | undefined {
  const api = otel();
  if (api === undefined) return undefined;
  const raw = guarded('read the active span', undefined, () => api.trace.getActiveSpan());
  return raw === undefined ? undefined : wrap(api, raw);
}

/** The active span when dynafold started it: what its requests consume is told to it, not to an app's span. */
export function activeOwnSpan(): OtelSpan | undefined {
  // Without a tracer provider dynafold starts no span (see `startSpan`), so none of its own is active.
  if (!tracing()) return undefined;
  const span = activeSpan();
  return span !== undefined && started.has(span) ? span : undefined;
}

/** The role the active context carries, given by a span started around it (see `SpanStart.role`). */
export function activeRole(): string | undefined {
  const api = otel();
  if (api === undefined) return undefined;
  const role = guarded('read the active span', undefined, () => activeContext(api).getValue(roleKey(api)));
  return typeof role === 'string' ? role : undefined;
}

/** The trace context of the active span, `undefined` without the API, a span or a valid one. */
export function activeTraceContext(): TraceContext | undefined {
  return activeSpan()?.traceContext();
}

function activeContext(api: OtelApi): Context {
  return guarded('read the active span', api.ROOT_CONTEXT, () => api.context.active());
}

/**
 * Runs `fn` in `context`. The context manager may throw before it runs `fn` (then `fn` runs outside it, as
 * with no SDK) or after (then `fn` has run: its outcome stands); what `fn` throws passes through.
 */
function within<T>(api: OtelApi, context: Context, fn: () => T): T {
  let outcome: { readonly value: T } | { readonly error: unknown } | undefined;
  guarded('run in a span', undefined, () =>
    api.context.with(context, () => {
      try {
        outcome = { value: fn() };
      } catch (error) {
        outcome = { error };
      }
    }),
  );
  if (outcome === undefined) return fn();
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

function wrap(api: OtelApi, raw: Span): OtelSpan {
  const known = wrappers.get(raw);
  if (known !== undefined) return known;
  const span: OtelSpan = {
    isRecording: () => guarded('record on a span', false, () => raw.isRecording()),
    setAttributes: (attributes) => guarded('record on a span', undefined, () => void raw.setAttributes(attributes)),
    addEvent: (name, attributes) => guarded('record on a span', undefined, () => void raw.addEvent(name, attributes)),
    addLinks: (links) =>
      guarded('record on a span', undefined, () => {
        const made = links.flatMap((link) => linkOf(api, link));
        // addLinks came with API 1.9; an older SDK's span may lack it.
        if (made.length > 0 && typeof raw.addLinks === 'function') raw.addLinks(made);
      }),
    fail: (exception, attributes) => {
      // Each on its own: a throw in one leaves the others done.
      guarded('record on a span', undefined, () => void raw.recordException(exception));
      guarded('record on a span', undefined, () => void raw.setAttributes(attributes));
      guarded('record on a span', undefined, () => void raw.setStatus({ code: api.SpanStatusCode.ERROR, message: exception.message }));
    },
    end: () => guarded('end a span', undefined, () => raw.end()),
    traceContext: () => guarded('read a trace context', undefined, () => traceContextOf(api, raw.spanContext())),
  };
  wrappers.set(raw, span);
  return span;
}

function traceContextOf(api: OtelApi, context: SpanContext): TraceContext | undefined {
  if (!api.isSpanContextValid(context)) return undefined;
  const traceparent = `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const tracestate = context.traceState?.serialize();
  return tracestate === undefined || tracestate === '' || tracestate.length > TRACESTATE_MAX ? { traceparent } : { traceparent, tracestate };
}

/** The link to the span a stored trace context names, as a remote one; none for a malformed context. */
function linkOf(api: OtelApi, link: StoredLink): Link[] {
  const match = TRACEPARENT.exec(link.trace.traceparent);
  if (match === null) return [];
  const [, traceId = '', spanId = '', flags = '00'] = match;
  const tracestate = link.trace.tracestate;
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
    ...(tracestate === undefined ? {} : { traceState: api.createTraceState(tracestate) }),
  };
  return api.isSpanContextValid(context) ? [{ context, attributes: link.attributes }] : [];
}

function kindOf(api: OtelApi, kind: SpanStart['kind']): SpanKind {
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
