import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { Layout } from '../layout';
import type { TransactPut } from '../inline';

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** What one append transaction writes: its commits, the idempotency sentinel, and Puts beside them (inline rows). */
export interface CommitTransaction {
  readonly commits: ReadonlyArray<Record<string, unknown>>;
  /** The idempotency sentinel's Put, conditioned on the key being free (see `sentinelPut`). */
  readonly sentinel?: TransactPut | undefined;
  readonly extras?: ReadonlyArray<TransactPut> | undefined;
}

/** How an append transaction ended. */
export type AppendOutcome =
  | { readonly kind: 'appended' }
  | { readonly kind: 'duplicate' } // the idempotency sentinel exists: an earlier append with this key won
  | { readonly kind: 'conflict' } // the version after the expected one is taken
  | { readonly kind: 'contended' } // DynamoDB cancelled it for a concurrent transaction: try again
  | { readonly kind: 'extrasLost'; readonly lost: ReadonlyArray<{ readonly index: number; readonly code: string }> }; // only extra Puts (inline rows) failed

/**
 * The items of an append transaction, in this order: a Put per commit conditioned on its key not existing
 * (its predecessor ends a commit, see `appendWithRetries`, so versions stay contiguous), the sentinel, the extras.
 */
export function transactItems(table: string, transaction: CommitTransaction): TransactItems {
  const notExists = { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': Layout.partitionKey } };
  return [
    ...transaction.commits.map((item) => ({ Put: { TableName: table, Item: item, ...notExists } })),
    ...(transaction.sentinel === undefined ? [] : [{ Put: transaction.sentinel }]),
    ...(transaction.extras ?? []).map((put) => ({ Put: put })),
  ];
}

/** What the reason codes of a cancelled append transaction mean; `undefined` for a cancellation none explains (the error stands). */
export function cancelledOutcome(codes: ReadonlyArray<string>, transaction: CommitTransaction): AppendOutcome | undefined {
  const sentinelIndex = transaction.commits.length;
  const extrasIndex = sentinelIndex + (transaction.sentinel === undefined ? 0 : 1);
  if (transaction.sentinel !== undefined && codes[sentinelIndex] === 'ConditionalCheckFailed') return { kind: 'duplicate' };
  if (codes.slice(0, extrasIndex).includes('ConditionalCheckFailed')) return { kind: 'conflict' };
  // The events would have gone in: what failed is a row written alongside them, for the caller to drop.
  const lost: Array<{ index: number; code: string }> = [];
  codes.forEach((code, index) => {
    if (index >= extrasIndex && code !== 'None') lost.push({ index: index - extrasIndex, code });
  });
  if (lost.length > 0) return { kind: 'extrasLost', lost };
  if (codes.includes('TransactionConflict')) return { kind: 'contended' };
  return undefined;
}
