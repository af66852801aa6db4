import type { Backoff } from './backoff';
import { requireBackoff, requireInteger } from './validate';

/**
 * How an operation tries again: `attempts` in all (the first included), waiting `backoff` between them,
 * and no new try once `maxElapsedMs` have passed since the first. Whichever runs out first ends it.
 * Every field is optional: an absent one takes the operation's default.
 *
 * @example
 * ```ts
 * await stream.append(id, events, { retry: { attempts: 20, maxElapsedMs: 5_000 } })
 * new Projection({ ...options, retry: { backoff: { initialMs: 10, maxMs: 200 } } })
 * ```
 */
export interface RetryOptions {
  /** Tries in all, the first included; an integer of at least 1. */
  readonly attempts?: number | undefined;
  /** The wait between tries. */
  readonly backoff?: Backoff | undefined;
  /** No new try starts this long after the first one; an integer of at least 0. @defaultValue no time limit, unless the operation says otherwise */
  readonly maxElapsedMs?: number | undefined;
}

/** {@link RetryOptions} with the defaults applied and validated. */
export interface ResolvedRetry {
  readonly attempts: number;
  readonly backoff: Backoff;
  /** `Infinity` when neither the options nor the defaults set a time limit. */
  readonly maxElapsedMs: number;
}

/**
 * Applies `defaults` field by field and validates the result; throws `ConfigurationError` naming the
 * field (as `<option>.attempts`, say) and, in `where`, whose option it is.
 */
export function resolveRetry(
  given: RetryOptions | undefined,
  defaults: { readonly attempts: number; readonly backoff: Backoff; readonly maxElapsedMs?: number | undefined },
  where?: string,
  option = 'retry',
): ResolvedRetry {
  const maxElapsedMs = given?.maxElapsedMs ?? defaults.maxElapsedMs;
  return {
    attempts: requireInteger(`${option}.attempts`, given?.attempts ?? defaults.attempts, 1, undefined, where),
    backoff: requireBackoff(`${option}.backoff`, given?.backoff ?? defaults.backoff, where),
    maxElapsedMs: maxElapsedMs === undefined ? Infinity : requireInteger(`${option}.maxElapsedMs`, maxElapsedMs, 0, undefined, where),
  };
}

/** Whether another try may start after `attempts` tries, `elapsedMs` after the first began (the first always may). */
export function mayRetry(retry: ResolvedRetry, attempts: number, elapsedMs: number): boolean {
  return attempts < retry.attempts && (attempts === 0 || elapsedMs < retry.maxElapsedMs);
}
