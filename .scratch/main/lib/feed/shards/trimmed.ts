import type { ShardPosition } from './lineage';
import type { StreamsApi } from './streams-api';

/**
 * What a `TrimmedDataAccessException` from a shard read means: take a new iterator (nothing can have been
 * lost), or records past the consumer's position are gone.
 */
export type TrimmedVerdict =
  { readonly kind: 'retake'; readonly position: ShardPosition; readonly reason: string } | { readonly kind: 'lost'; readonly detail: string };

/** Trimmed answers judged harmless in a row, after which reading a shard gives up all the same. */
export const TRIMMED_RETAKES = 5;

/**
 * Judges a trimmed answer by evidence, not by the exception alone. DynamoDB Local numbers stream records
 * with one counter across all tables, and an iterator taken on an empty shard (at TRIM_HORIZON or
 * LATEST, or chained from one) fails at the shard's first record once the counter moved elsewhere,
 * although nothing is gone. So:
 * - a position that is no checkpoint (TRIM_HORIZON, LATEST: nothing read yet) has nothing to lose: read
 *   the shard from its oldest record (which, for a LATEST taken on an empty shard, is exactly what
 *   followed it);
 * - a sequence position lost nothing when the shard still holds a record at or before it (`oldest`, the
 *   oldest record the shard holds, `undefined` when it holds none): read again from the same position;
 *   otherwise the records between the position and the oldest one may have been trimmed.
 */
export function judgeTrimmed(position: ShardPosition, oldest: string | undefined): TrimmedVerdict {
  if (position.type === 'TRIM_HORIZON' || position.type === 'LATEST') {
    return { kind: 'retake', position: { type: 'TRIM_HORIZON' }, reason: `nothing was read from ${position.type} yet` };
  }
  const { sequenceNumber } = position;
  if (oldest !== undefined && compareSequenceNumbers(oldest, sequenceNumber) <= 0) {
    return { kind: 'retake', position, reason: `the shard still holds record ${oldest}, at or before ${sequenceNumber}` };
  }
  return {
    kind: 'lost',
    detail:
      oldest === undefined
        ? `the shard holds no record any more, and the consumer was at ${sequenceNumber}`
        : `the oldest record the shard still holds, ${oldest}, is newer than the consumer's position ${sequenceNumber}: the records between them were trimmed`,
  };
}

/** Judges a trimmed answer to a read of `shardId` from `position`, looking up the shard's oldest record when that decides it. */
export async function judgeTrimmedRead(api: Pick<StreamsApi, 'oldestRecord'>, shardId: string, position: ShardPosition): Promise<TrimmedVerdict> {
  const bySequence = position.type === 'AFTER_SEQUENCE_NUMBER' || position.type === 'AT_SEQUENCE_NUMBER';
  return judgeTrimmed(position, bySequence ? await api.oldestRecord(shardId) : undefined);
}

/**
 * Orders two sequence numbers of one shard. They are decimal strings of any length (21 zero-padded
 * digits on DynamoDB Local, longer on AWS), so they compare as numbers, not as text.
 */
export function compareSequenceNumbers(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
