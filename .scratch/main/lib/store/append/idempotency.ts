import { createHash } from 'node:crypto';
import { IdempotencyMismatchError } from '../../errors';
import type { ValidEvent } from '../codec';

/** The attributes of an idempotency sentinel besides its key and marker. */
export const SentinelAttributes = {
  fromVersion: 'fromVersion',
  toVersion: 'toVersion',
  timestamp: 'timestamp',
  /** A SHA-256 of what the key stood for (see {@link requestHash}); absent on sentinels written before it existed. */
  requestHash: 'requestHash',
  /**
   * With `idempotencyTtl`: when the key is free again, in epoch milliseconds. The TTL attribute holds
   * epoch seconds (what DynamoDB TTL reads), too coarse to hold a key for exactly `durationMs`.
   */
  expiresAtMs: 'expiresAtMs',
} as const;

/** How long sentinels live, resolved from `EventStreamOptions.idempotencyTtl`. @inline */
export interface SentinelTtl {
  readonly durationMs: number;
  readonly attribute: string;
}

/**
 * What an idempotency key stands for, as a hex SHA-256 of canonical JSON (object keys sorted, so the
 * order fields were written in never matters): by default the events' types and data (as validated, so
 * what is stored) and the `expectedVersion` the caller gave (or none). Metadata is left out: a retry
 * often carries a fresh trace or request id. An explicit `request` replaces all of that.
 */
export function requestHash(input: {
  readonly events: ReadonlyArray<ValidEvent>;
  readonly expectedVersion?: number | undefined;
  readonly request?: unknown;
}): string {
  const identity =
    input.request !== undefined
      ? { request: input.request }
      : { expectedVersion: input.expectedVersion ?? null, events: input.events.map((event) => ({ type: event.type, data: event.data })) };
  return createHash('sha256').update(canonicalJson(identity)).digest('hex');
}

/** JSON with every plain object's keys in sorted order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, nested: unknown) => {
    if (nested === null || typeof nested !== 'object' || Array.isArray(nested)) return nested;
    const prototype = Object.getPrototypeOf(nested) as unknown;
    if (prototype !== Object.prototype && prototype !== null) return nested;
    return Object.fromEntries(Object.entries(nested).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/**
 * When a sentinel written at `now` (epoch ms) frees its key: `ms`, exactly `durationMs` later, which the
 * next append's condition compares; and `seconds`, rounded up so that DynamoDB TTL never deletes the
 * sentinel before then.
 */
export function expiresAt(ttl: SentinelTtl, now: number): { readonly ms: number; readonly seconds: number } {
  const ms = now + ttl.durationMs;
  return { ms, seconds: Math.ceil(ms / 1000) };
}

/**
 * Checks that a repeated idempotency key stands for the same request as the sentinel's. A sentinel without
 * a hash (written by an older version) matches any request, as it always did.
 */
export function assertSameRequest(
  sentinel: Readonly<Record<string, unknown>>,
  hash: string,
  where: { readonly streamName: string; readonly streamId: string; readonly idempotencyKey: string },
): void {
  const stored = sentinel[SentinelAttributes.requestHash];
  if (typeof stored === 'string' && stored !== hash) {
    throw new IdempotencyMismatchError(where.streamName, where.streamId, where.idempotencyKey, {
      fromVersion: Number(sentinel[SentinelAttributes.fromVersion]),
      toVersion: Number(sentinel[SentinelAttributes.toVersion]),
    });
  }
}
