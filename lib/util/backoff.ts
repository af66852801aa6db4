/** A jittered exponential backoff: attempt n waits a random time in [cap/2, cap], cap = min(max, initial × factorⁿ). */
export interface Backoff {
  /** Delay before the first retry, in ms. */
  readonly initialMs: number;
  /** Largest delay, in ms. */
  readonly maxMs: number;
  /** Growth per attempt. @defaultValue 2 */
  readonly factor?: number;
}

/**
 * The delay before retry number `attempt` (0-based). Half of it is fixed and half random ("equal jitter"),
 * so retries spread out without ever collapsing to zero and hammering the contended item again at once.
 */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const cap = Math.min(backoff.maxMs, backoff.initialMs * (backoff.factor ?? 2) ** Math.max(0, attempt));
  return cap / 2 + random() * (cap / 2);
}
