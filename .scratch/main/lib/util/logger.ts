/**
 * Where dynafold reports what it does: pino (and Fastify's `app.log`), a Powertools Logger, `console`, or
 * anything with the same methods. Every method is optional, so a partial logger works.
 *
 * @example
 * ```ts
 * new ChangeFeedConsumer({ ...options, logger: pino() })
 * new Projection({ ...options, logger: new Logger({ serviceName: 'projections' }) })   // Powertools
 * ```
 */
export interface Logger {
  debug?(...args: unknown[]): void;
  info?(...args: unknown[]): void;
  warn?(...args: unknown[]): void;
  error?(...args: unknown[]): void;
}

/** The levels dynafold logs at. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Calls the logger in the argument order it expects, and never lets a faulty logger break the caller.
 * pino takes `(details, message)`; Powertools Logger, `console` and most others take
 * `(message, details)`. A pino logger is told apart by its `levels` and `bindings`.
 */
export function log(logger: Logger | undefined, level: LogLevel, details: Record<string, unknown>, message: string): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with `.call(logger, ...)` below
  const method = logger?.[level];
  if (method === undefined) return;
  try {
    if (detailsFirst(logger as Logger)) method.call(logger, details, message);
    else method.call(logger, message, details);
  } catch {
    // Diagnostics must never end what they report on.
  }
}

function detailsFirst(logger: Logger): boolean {
  const candidate = logger as { levels?: unknown; bindings?: unknown };
  return typeof candidate.levels === 'object' && candidate.levels !== null && typeof candidate.bindings === 'function';
}
