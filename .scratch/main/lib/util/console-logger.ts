import type { Logger } from './logger';

/**
 * The logger of the entry points that run unattended (the Lambda handlers, `processBatch`,
 * `runChangeFeed`, the outbox relay) when given none: warnings and errors as one JSON line each through
 * `console.warn` / `console.error`, which Lambda sends to CloudWatch as one searchable entry. Debug and
 * info are left out: a failure must be loud, a healthy batch quiet.
 *
 * @example
 * ```ts
 * // {"level":"warn","message":"row failed; …","projection":"summaries","key":{"orderId":"o-1"},"code":"dynamo.tableNotFound",…}
 * ```
 */
export const consoleLogger: Logger = {
  warn: (message: unknown, details?: unknown) => console.warn(jsonLine('warn', message, details)),
  error: (message: unknown, details?: unknown) => console.error(jsonLine('error', message, details)),
};

/** The logger an entry point uses: the one given, none for `false`, {@link consoleLogger} by default. */
export function resolveLogger(logger: Logger | false | undefined): Logger | undefined {
  if (logger === false) return undefined;
  return logger ?? consoleLogger;
}

/**
 * One log entry as a JSON line: level, message, the details, and the error (`err`) as `error` with its
 * code lifted to the top, so that a log query can filter on it.
 */
function jsonLine(level: string, message: unknown, details: unknown): string {
  const { err, ...rest } = typeof details === 'object' && details !== null ? (details as Record<string, unknown>) : {};
  const code =
    typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : undefined;
  const entry = { level, message: String(message), ...rest, ...(code === undefined ? {} : { code }), ...(err === undefined ? {} : { error: err }) };
  try {
    return JSON.stringify(entry, replaceUnserializable);
  } catch {
    // A cycle in the details: the line still says what happened.
    return JSON.stringify({ level, message: String(message), ...(code === undefined ? {} : { code }) });
  }
}

/** Errors keep their name and message (a dynafold error its payload too, see its `toJSON`); big integers become text. */
function replaceUnserializable(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (!(value instanceof Error) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  const cause = value.cause instanceof Error ? { name: value.cause.name, message: value.cause.message } : value.cause;
  return { name: value.name, message: value.message, ...(cause === undefined ? {} : { cause }) };
}
