import { consoleLogger, log } from '../../util';

/**
 * What dynafold asked of OpenTelemetry when the app's SDK threw: each is warned about once per process.
 * The API itself never throws; what it calls into does (a span processor's `onStart` and `onEnd`, a
 * sampler, the context manager, a metric reader or view, span methods an app wrapped).
 */
export type OtelCall =
  | 'start a span'
  | 'end a span'
  | 'record on a span'
  | 'read the active span'
  | 'run in a span'
  | 'read a trace context'
  | 'make instruments'
  | 'record a measurement'
  | 'flush what was recorded';

/** The calls warned about already. */
const warned = new Set<OtelCall>();

/**
 * Runs `call` into the OpenTelemetry API, answering `fallback` (what an app without an SDK would get:
 * no span, no context, nothing recorded) when it throws. Telemetry never changes an operation's outcome,
 * so nothing the app's SDK throws goes further than this; the first throw of each kind of call is logged
 * once, as one JSON line through `console.warn`, so a broken exporter or processor does not go unseen
 * (OpenTelemetry's own `diag` logger is silent unless the app set one).
 */
export function guarded<T>(call: OtelCall, fallback: T, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    warnOnce(call, error);
    return fallback;
  }
}

/** As {@link guarded}, for a call that answers a promise: a rejection is told and answers `fallback` too. */
export async function guardedAsync<T>(call: OtelCall, fallback: T, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    warnOnce(call, error);
    return fallback;
  }
}

function warnOnce(call: OtelCall, error: unknown): void {
  if (warned.has(call)) return;
  warned.add(call);
  log(
    consoleLogger,
    'warn',
    { otelCall: call, err: error },
    `OpenTelemetry threw when dynafold tried to ${call}; the operation went on without it (told once per process)`,
  );
}
