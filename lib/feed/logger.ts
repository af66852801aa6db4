/**
 * Where the feed reports what it does: a logger with pino's or Powertools' shape, or `console`.
 * The feed calls `(details, message)`; every method is optional, so a partial logger works.
 *
 * @example
 * ```ts
 * const feed = new ChangeFeedConsumer({ ...options, logger: pino() })
 * ```
 */
export interface ChangeFeedLogger {
  debug?(...args: unknown[]): void;
  info?(...args: unknown[]): void;
  warn?(...args: unknown[]): void;
  error?(...args: unknown[]): void;
}

/**
 * The levels the feed logs at.
 *
 * @example
 * ```ts
 * const level: LogLevel = 'warn'
 * ```
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Calls the logger without ever letting a faulty logger break the feed.
 *
 * @example
 * ```ts
 * log(logger, 'info', { shardId }, 'shard read to its end')
 * ```
 */
export function log(logger: ChangeFeedLogger | undefined, level: LogLevel, details: Record<string, unknown>, message: string): void {
  try {
    logger?.[level]?.(details, message);
  } catch {
    // Diagnostics must never end the feed.
  }
}
