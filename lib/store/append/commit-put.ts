import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getItem, sendConditional } from '../../dynamo';
import { isCommitOf } from '../codec';
import { Layout } from '../layout';

/** How a conditional Put of one commit ended. */
export type CommitPutOutcome =
  | { readonly kind: 'appended' }
  /** Its first version was taken; `winner` is the commit that holds it, when DynamoDB returned it. */
  | { readonly kind: 'conflict'; readonly winner: Record<string, unknown> | undefined };

/** The key of a commit item. */
export function commitKey(item: Readonly<Record<string, unknown>>): Record<string, string> {
  return { [Layout.partitionKey]: item[Layout.partitionKey] as string, [Layout.sortKey]: item[Layout.sortKey] as string };
}

/**
 * Whether an append can be one conditional PutItem instead of a transaction: one commit and nothing
 * written beside it (no idempotency sentinel, no inline rows). Its predecessor is known to end a commit
 * (see `appendWithRetries`), so the Put's `attribute_not_exists` alone keeps versions contiguous.
 */
export function fitsCommitPut(append: {
  readonly commitCount: number;
  readonly idempotencyKey?: string | undefined;
  readonly inlineCount: number;
}): boolean {
  return append.commitCount === 1 && append.idempotencyKey === undefined && append.inlineCount === 0;
}

/**
 * Writes one commit unless its first version exists: a write unit per KB where a transaction bills two.
 * A lost race answers the commit that won, so the writer can go on from it without reading the stream
 * again. A commit that carries this append's id is its own (the SDK sent the Put again after DynamoDB
 * applied it and the answer was lost: see `sendConditional`).
 */
export async function sendCommitPut(
  documents: DynamoDBDocumentClient,
  table: string,
  item: Record<string, unknown>,
  appendId: string,
): Promise<CommitPutOutcome> {
  const outcome = await sendConditional(
    'PutItem',
    table,
    () =>
      documents.send(
        new PutCommand({
          TableName: table,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': Layout.partitionKey },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    {
      isOwn: (winner) => isCommitOf(winner, appendId),
      read: () => getItem(documents, table, commitKey(item)),
    },
  );
  return outcome.kind === 'written' ? { kind: 'appended' } : { kind: 'conflict', winner: outcome.item };
}
