import type { PartialBatchResponse } from '../lambda';

/**
 * What an acknowledgement does to a shard:
 * - `all`: every record succeeded; checkpoint at the last one, read on.
 * - `partial`: checkpoint at the record before the earliest failed one (none if it is the first), and
 *   read again from the failed record.
 * - `batch`: the response named something that is no record of the batch, so the whole batch failed,
 *   as Lambda does; nothing is checkpointed and the batch is read again.
 */
export type Completion =
  | { readonly kind: 'all'; readonly checkpoint: string }
  | { readonly kind: 'partial'; readonly checkpoint: string | undefined; readonly retryFrom: string }
  | { readonly kind: 'batch'; readonly retryFrom: string; readonly unknownIdentifiers: ReadonlyArray<string> };

/**
 * Applies Lambda's partial batch response contract to a batch's sequence numbers (in order).
 */
export function resolveCompletion(sequenceNumbers: ReadonlyArray<string>, response: PartialBatchResponse): Completion {
  const first = sequenceNumbers[0];
  const last = sequenceNumbers[sequenceNumbers.length - 1];
  if (first === undefined || last === undefined) throw new RangeError('A batch has at least one record');
  const failures = response.batchItemFailures;
  if (failures.length === 0) return { kind: 'all', checkpoint: last };

  const indexOf = new Map(sequenceNumbers.map((sequenceNumber, index) => [sequenceNumber, index]));
  const unknown = failures.map((failure) => failure.itemIdentifier).filter((id) => typeof id !== 'string' || !indexOf.has(id));
  if (unknown.length > 0) return { kind: 'batch', retryFrom: first, unknownIdentifiers: unknown };

  const earliest = Math.min(...failures.map((failure) => indexOf.get(failure.itemIdentifier) ?? 0));
  return {
    kind: 'partial',
    checkpoint: earliest === 0 ? undefined : sequenceNumbers[earliest - 1],
    retryFrom: sequenceNumbers[earliest] ?? first,
  };
}
