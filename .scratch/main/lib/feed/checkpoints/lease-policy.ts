import type { LeaseRecord } from './checkpoint-store';

/**
 * Whether `owner` may take the lease at `now`: it is absent, has lapsed, or is already `owner`'s.
 * Expiry compares the holder's clock (which wrote `expiresAt`) with the taker's, so hosts need
 * roughly synchronised clocks.
 */
export function canTakeLease(current: LeaseRecord | undefined, owner: string, now: number): boolean {
  return current === undefined || current.owner === owner || current.expiresAt <= now;
}

/**
 * The moment a failing renewal stops being retried: `renewEveryMs` before the lease lapses, so that the
 * feed fails while the lease is still formally ours rather than after another process could take it.
 */
export function renewalDeadline(expiresAt: number, renewEveryMs: number): number {
  return expiresAt - renewEveryMs;
}

/**
 * How long a feed waiting for a held lease sleeps before asking again: until the holder's lease lapses,
 * but at most `renewEveryMs` so that a release is noticed within one renewal period.
 */
export function leaseWaitDelay(holder: LeaseRecord | undefined, now: number, renewEveryMs: number): number {
  const untilLapse = holder === undefined ? 0 : holder.expiresAt - now;
  // A few ms past the expiry, because a lease is only free once `expiresAt <= now` on the taker's clock.
  return Math.max(10, Math.min(renewEveryMs, untilLapse + 5));
}
