/** A jittered exponential backoff: attempt n waits a random time below cap = min(max, initial × factorⁿ). */
export interface Backoff {
  /** Delay before the first retry, in ms. */
  readonly initialMs: number;
  /** Largest delay, in ms. */
  readonly maxMs: number;
  /** Growth per attempt. @defaultValue 2 */
  readonly factor?: number | undefined;
  /**
   * `'equal'` waits in `[cap/2, cap]`: retries spread out but never collapse to zero. `'full'` waits in
   * `[0, cap]`: many writers racing for one item spread furthest and finish soonest.
   * @defaultValue 'equal'
   */
  readonly jitter?: 'equal' | 'full' | undefined;
}

/** The delay before retry number `attempt` (0-based). */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const cap = Math.min(backoff.maxMs, backoff.initialMs * (backoff.factor ?? 2) ** Math.max(0, attempt));
  return backoff.jitter === 'full' ? random() * cap : cap / 2 + random() * (cap / 2);
}
