import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransactionLimitError, ValidationError } from '../../errors';
import { TransactionLimits, asRequestError, cancellationCodes, getItem, itemSize, landedDespite } from '../../dynamo';
import { commitKey } from './commit-put';
import { type EventCodec, type ValidEvent, isCommitOf, toCommitItem, storedEventAttributes } from '../codec';
import { Layout, MAX_VERSION, partitionKeyOf } from '../layout';
import { SentinelAttributes, expiresAt, type SentinelTtl } from './idempotency';
import type { TraceContext } from '../../telemetry';

type Put = NonNullable<NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number]['Put']>;
import type { TransactPut } from '../inline';

/** What one append transaction writes. */
export interface AppendPlan {
  readonly table: string;
  readonly streamId: string;
  readonly expectedVersion: number;
  readonly events: ReadonlyArray<ValidEvent>;
  readonly idempotencyKey?: string | undefined;
  /** What the idempotency key stands for (see `requestHash`), stored on the sentinel. */
  readonly requestHash?: string | undefined;
  /** Sentinels expire this long after the append (DynamoDB TTL on `attribute`); an expired one is replaced. */
  readonly sentinelTtl?: SentinelTtl | undefined;
  /** When the append takes place, in epoch milliseconds: every item it writes carries it. */
  readonly appendedAt: number;
  /** Each event a commit of its own (`EventStreamOptions.itemPerEvent`), as writers of 0.2 can safely meet. */
  readonly itemPerEvent?: boolean | undefined;
  /** The trace context of the append's span, stored on each commit (see `EventStreamOptions.traceContext`). */
  readonly trace?: TraceContext | undefined;
  /** The append's id, stored on each commit: a retry of a request that was applied knows its own commit by it. */
  readonly appendId: string;
}

/** How a cancelled append transaction failed. */
export type AppendOutcome =
  | { readonly kind: 'appended'; readonly items: ReadonlyArray<Record<string, unknown>> }
  | { readonly kind: 'duplicate' } // the idempotency sentinel exists: an earlier append with this key won
  | { readonly kind: 'conflict' } // the expected version is missing, or a new version exists already
  | { readonly kind: 'contended' } // DynamoDB cancelled it for a concurrent transaction: try again
  | { readonly kind: 'extrasLost'; readonly lost: ReadonlyArray<{ readonly index: number; readonly code: string }> }; // only extra Puts (inline rows) failed

export function sentinelKey(codec: EventCodec, streamId: string, idempotencyKey: string): Record<string, string> {
  return {
    [Layout.partitionKey]: partitionKeyOf(codec.streamName, streamId),
    [Layout.sortKey]: Layout.idempotencyPrefix + idempotencyKey,
  };
}

/**
 * Builds the commits of an append and checks DynamoDB's limits before anything is sent, so an append that
 * can't succeed fails with a clear error instead of a service exception. An append is one commit; one too
 * large for an item (400 KB, after compression) is cut into several, each as full as it can be, which
 * then go in one transaction (4 MB at most).
 */
export function planCommits(codec: EventCodec, plan: AppendPlan): Record<string, unknown>[] {
  const last = plan.expectedVersion + plan.events.length;
  if (last > MAX_VERSION) throw new ValidationError(`Stream ${codec.streamName} "${plan.streamId}" would exceed version ${MAX_VERSION}.`);
  const commits = cutIntoCommits(codec, plan);
  // Commits as full as items can be hold over 400 KB two in a row, so the 4 MB limit comes long before the
  // 100 items one; commits of one event each (`itemPerEvent`) can reach it.
  const count = commits.length + (plan.idempotencyKey === undefined ? 0 : 1);
  if (count > TransactionLimits.items) {
    throw new TransactionLimitError(
      `An append of ${plan.events.length} events needs ${count} transaction items with \`itemPerEvent\`; DynamoDB allows ` +
        `${TransactionLimits.items}. Split it into several appends.`,
      'items',
    );
  }
  const total = commits.reduce((sum, commit) => sum + itemSize(commit), 0);
  if (commits.length > 1 && total > TransactionLimits.transactionBytes) {
    throw new TransactionLimitError(
      `An append of ${plan.events.length} events is about ${Math.ceil(total / 1024)} KB, over DynamoDB's 4 MB transaction limit. ` +
        'Split it into several appends.',
      'transactionSize',
    );
  }
  return commits;
}

/**
 * The append's events as commit items, each holding as many events as fit in one item: one commit unless
 * the events are too large together. An event too large for an item of its own is a `TransactionLimitError`.
 */
function cutIntoCommits(codec: EventCodec, plan: AppendPlan): Record<string, unknown>[] {
  // Each event's attributes once (its data compressed once), shared by every commit tried.
  const stored = plan.events.map((event) => storedEventAttributes(codec, event));
  const stamp = { appendedAt: plan.appendedAt, trace: plan.trace, appendId: plan.appendId };
  if (plan.itemPerEvent === true) {
    return stored.map((event, index) => toCommitItem(codec, plan.streamId, plan.expectedVersion + 1 + index, [event], stamp));
  }
  const commitOf = (from: number, to: number) => toCommitItem(codec, plan.streamId, plan.expectedVersion + 1 + from, stored.slice(from, to), stamp);
  const whole = commitOf(0, plan.events.length);
  if (itemSize(whole) <= TransactionLimits.itemBytes) return [whole];
  const commits: Record<string, unknown>[] = [];
  let from = 0;
  while (from < plan.events.length) {
    const single = commitOf(from, from + 1);
    if (itemSize(single) > TransactionLimits.itemBytes) throw tooLarge(codec, from, plan.events[from] as ValidEvent, itemSize(single));
    // The largest commit from `from` that fits: a binary search, each probe one item built and sized.
    let fits = from + 1;
    let over = plan.events.length + 1;
    while (over - fits > 1) {
      const middle = Math.floor((fits + over) / 2);
      if (itemSize(commitOf(from, middle)) <= TransactionLimits.itemBytes) fits = middle;
      else over = middle;
    }
    commits.push(fits === from + 1 ? single : commitOf(from, fits));
    from = fits;
  }
  return commits;
}

function tooLarge(codec: EventCodec, index: number, event: ValidEvent, size: number): TransactionLimitError {
  return new TransactionLimitError(
    `Event ${index} (${event.type}) of stream ${codec.streamName} is about ${Math.ceil(size / 1024)} KB stored, ` +
      `over DynamoDB's 400 KB item limit${codec.compression === false ? ' (compression is off)' : ' even compressed'}. ` +
      'Store large payloads elsewhere (e.g. S3) and put a reference in the event.',
    'itemSize',
  );
}

/**
 * Sends the append as ONE TransactWriteItems: a Put per commit conditioned on not existing, the idempotency
 * sentinel conditioned on not existing, and `extras` (inline rows). Version `expectedVersion` is known to
 * end a commit (see `appendWithRetries`), so the Puts keep versions contiguous.
 */
export async function sendAppend(
  documents: DynamoDBDocumentClient,
  codec: EventCodec,
  plan: AppendPlan,
  items: ReadonlyArray<Record<string, unknown>>,
  extras: ReadonlyArray<TransactPut> = [],
): Promise<AppendOutcome> {
  const notExists = { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': Layout.partitionKey } };
  const transactItems: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [];
  for (const item of items) transactItems.push({ Put: { TableName: plan.table, Item: item, ...notExists } });
  const sentinelIndex = transactItems.length;
  if (plan.idempotencyKey !== undefined) transactItems.push({ Put: sentinelPut(codec, plan) });
  const extrasIndex = transactItems.length;
  for (const put of extras) transactItems.push({ Put: put });
  try {
    await documents.send(new TransactWriteCommand({ TransactItems: transactItems }));
    return { kind: 'appended', items };
  } catch (error) {
    const tables = [plan.table, ...extras.flatMap((put) => put.TableName ?? [])];
    const codes = cancellationCodes(error);
    if (codes === undefined) {
      // All or nothing: the first commit, if this append's, says the whole transaction went in.
      const first = items[0] as Record<string, unknown>;
      const own = {
        isOwn: (item: Readonly<Record<string, unknown>>) => isCommitOf(item, plan.appendId),
        read: () => getItem(documents, plan.table, commitKey(first)),
      };
      if (await landedDespite(error, own)) return { kind: 'appended', items };
      throw asRequestError('TransactWriteItems', tables, error);
    }
    if (plan.idempotencyKey !== undefined && codes[sentinelIndex] === 'ConditionalCheckFailed') return { kind: 'duplicate' };
    if (codes.slice(0, extrasIndex).includes('ConditionalCheckFailed')) return { kind: 'conflict' };
    // The events would have gone in: what failed is a row written alongside them, for the caller to drop.
    const lost = extraFailures(codes, extrasIndex);
    if (lost.length > 0) return { kind: 'extrasLost', lost };
    if (codes.includes('TransactionConflict')) return { kind: 'contended' };
    throw asRequestError('TransactWriteItems', tables, error);
  }
}

/**
 * The idempotency sentinel's Put: conditioned on not existing, or, with a TTL, on having expired (DynamoDB
 * deletes expired items lazily, so an expired sentinel may still be there: it no longer holds the key).
 */
function sentinelPut(codec: EventCodec, plan: AppendPlan): Put {
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

/** The extra Puts (by index among them) DynamoDB refused, with its reason code. */
function extraFailures(codes: ReadonlyArray<string>, extrasIndex: number): Array<{ index: number; code: string }> {
  const lost: Array<{ index: number; code: string }> = [];
  codes.forEach((code, index) => {
    if (index >= extrasIndex && code !== 'None') lost.push({ index: index - extrasIndex, code });
  });
  return lost;
}
