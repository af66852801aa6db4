import { createHash } from 'node:crypto';
import { IdempotencyMismatchError } from '../../errors';
import type { EventCodec, ValidEvent } from '../codec';
import type { TransactPut } from '../inline';
import { Layout, SentinelAttributes, partitionKeyOf } from '../layout';
import type { AppendPlan } from './plan-commits';

/** How long sentinels live, resolved from `EventStreamOptions.idempotencyTtl`. @inline */
export interface SentinelTtl {
  readonly durationMs: number;
  readonly attribute: string;
}

/**
 * What an idempotency key stands for, as a hex SHA-256 of canonical JSON (object keys sorted, so the
 * order fields were written in never matters): by default the events' types and data (as validated, so
 * what is stored; personal fields as keyed hashes under their subjects' keys) and the `expectedVersion` the caller gave (or none). Metadata is left out: a retry
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
      : {
          expectedVersion: input.expectedVersion ?? null,
          // Personal fields hash under their subject's key: a sentinel holds nothing to test a guess against once it is forgotten.
          events: input.events.map((event) => ({ type: event.type, data: event.personal === undefined ? event.data : event.personal.identity() })),
        };
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

/** The key of the idempotency sentinel of `idempotencyKey`. */
export function sentinelKey(codec: EventCodec, streamId: string, idempotencyKey: string): Record<string, string> {
  return {
    [Layout.partitionKey]: partitionKeyOf(codec.streamName, streamId),
    [Layout.sortKey]: Layout.idempotencyPrefix + idempotencyKey,
  };
}

/**
 * The idempotency sentinel's Put: conditioned on not existing, or, with a TTL, on having expired (DynamoDB
 * deletes expired items lazily, so an expired sentinel may still be there: it no longer holds the key).
 */
export function sentinelPut(codec: EventCodec, plan: AppendPlan): TransactPut {
  const now = plan.appendedAt;
  const ttl = plan.sentinelTtl;
  const expiry = ttl === undefined ? undefined : expiresAt(ttl, now);
  return {
    TableName: plan.table,
    Item: {
      ...sentinelKey(codec, plan.streamId, plan.idempotencyKey as string),
      [Layout.idempotencyMarker]: codec.streamName,
      [SentinelAttributes.fromVersion]: plan.expectedVersion + 1,
      [SentinelAttributes.toVersion]: plan.expectedVersion + plan.events.length,
      [SentinelAttributes.timestamp]: new Date(plan.appendedAt).toISOString(),
      ...(plan.requestHash === undefined ? {} : { [SentinelAttributes.requestHash]: plan.requestHash }),
      ...(ttl === undefined || expiry === undefined ? {} : { [ttl.attribute]: expiry.seconds, [SentinelAttributes.expiresAtMs]: expiry.ms }),
    },
    ...(ttl === undefined
      ? { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': Layout.partitionKey } }
      : {
          // To the millisecond; a sentinel written before `expiresAtMs` existed expires by its TTL seconds
          // (rounded up, so they never free a key before `expiresAtMs` does).
          ConditionExpression: 'attribute_not_exists(#pk) OR #expiresMs <= :nowMs OR #ttl < :now',
          ExpressionAttributeNames: { '#pk': Layout.partitionKey, '#ttl': ttl.attribute, '#expiresMs': SentinelAttributes.expiresAtMs },
          ExpressionAttributeValues: { ':nowMs': now, ':now': Math.floor(now / 1000) },
        }),
  };
}
