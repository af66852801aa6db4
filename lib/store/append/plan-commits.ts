import { TransactionLimitError, ValidationError } from '../../errors';
import { TransactionLimits, itemFits, itemSize } from '../../dynamo';
import { type EventCodec, type ValidEvent, toCommitItem, storedEventAttributes } from '../codec';
import { MAX_VERSION } from '../layout';
import type { ResolvedTtl } from '../../util';
import type { TraceContext } from '../../telemetry';

/** What one try of an append writes. */
export interface AppendPlan {
  readonly table: string;
  readonly streamId: string;
  readonly expectedVersion: number;
  readonly events: ReadonlyArray<ValidEvent>;
  readonly idempotencyKey?: string | undefined;
  /** What the idempotency key stands for (see `requestHash`), stored on the sentinel. */
  readonly requestHash?: string | undefined;
  /** Sentinels expire this long after the append (DynamoDB TTL on `attribute`); an expired one is replaced. */
  readonly sentinelTtl?: ResolvedTtl | undefined;
  /** When the append takes place, in epoch milliseconds: every item it writes carries it. */
  readonly appendedAt: number;
  /** Each event a commit of its own (`EventStreamOptions.itemPerEvent`), as writers of 0.2 can safely meet. */
  readonly itemPerEvent?: boolean | undefined;
  /** The trace context of the append's span, stored on each commit (see `EventStreamOptions.traceContext`). */
  readonly trace?: TraceContext | undefined;
  /** The append's id, stored on each commit: a retry of a request that was applied knows its own commit by it. */
  readonly appendId: string;
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
  // One commit was sized as it was cut (at most 400 KB): only several can reach the transaction's limit.
  const total = commits.length === 1 ? 0 : commits.reduce((sum, commit) => sum + itemSize(commit), 0);
  if (total > TransactionLimits.transactionBytes) {
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
  if (itemFits(whole, TransactionLimits.itemBytes)) return [whole];
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
