import { processBatch, type AnyProjection, type ProcessBatchOptions, type ProcessResult } from '../projector';
import type { AnyEventStream } from '../store';
import type { ChangeFeedBatch, ChangeFeedRecord } from './batch';
import { runBatches, type ChangeFeedSource } from './run-batches';

/**
 * Projections by name, as `processBatch` takes them.
 *
 * @example
 * ```ts
 * const projections: FeedProjections = { summaries: OrderSummaryProjection }
 * ```
 */
export type FeedProjections = Record<string, AnyProjection>;

/**
 * Options of {@link runChangeFeed}: what `processBatch` takes (projections, streams, onDecodeFailure,
 * image) except how records are identified, which is always their SequenceNumber, plus `onBatch`.
 *
 * @example
 * ```ts
 * const options: RunChangeFeedOptions<{ summaries: typeof OrderSummaryProjection }, {}> = {
 *   projections: { summaries: OrderSummaryProjection },
 *   onDecodeFailure: 'skip',
 * }
 * ```
 */
export interface RunChangeFeedOptions<P extends FeedProjections, St extends Record<string, AnyEventStream>> {
  /** Projections by name; each record is routed to every projection of its stream. */
  readonly projections: P;
  /** Streams whose events come back in the result's `unrouted`. */
  readonly streams?: St;
  /** `'report'` fails undecodable records (holding their shard); `'skip'` acknowledges them. @defaultValue 'report' */
  readonly onDecodeFailure?: 'report' | 'skip';
  /** The image to decode of a record, for a table whose items need it. @defaultValue the new image of INSERTs */
  readonly image?: ProcessBatchOptions<P, St, ChangeFeedRecord>['image'];
  /**
   * Runs after a batch is processed and before it is acknowledged, to act on applied or unrouted events.
   * If it fails, the run ends without acknowledging the batch, so the batch is read again on restart.
   */
  readonly onBatch?: (batch: ChangeFeedBatch, result: ProcessResult<P, St, ChangeFeedRecord>) => unknown;
}

/**
 * Runs a change feed into projections: each batch goes through `processBatch(batch.records, { projections,
 * source: 'lambda' })`, then `onBatch`, then is acknowledged with its partial batch response. Shards are
 * processed concurrently, each shard's batches in order. Resolves when the table's stream is disabled and
 * every shard drained (or the feed is stopped); rejects when the feed or `onBatch` fails.
 *
 * @example
 * ```ts
 * await runChangeFeed(feed, {
 *   projections: { summaries: OrderSummaryProjection },
 *   onBatch: (batch, result) => console.log(batch.shardId, result.outcomes.summaries.length),
 * })
 * ```
 */
export function runChangeFeed<P extends FeedProjections, St extends Record<string, AnyEventStream> = Record<string, never>>(
  feed: ChangeFeedSource,
  options: RunChangeFeedOptions<P, St>,
): Promise<void> {
  const { onBatch, projections, streams, onDecodeFailure, image } = options;
  return runBatches(feed, async (batch) => {
    const result = await processBatch<P, St, ChangeFeedRecord>(batch.records, {
      projections,
      source: 'lambda',
      ...(streams === undefined ? {} : { streams }),
      ...(onDecodeFailure === undefined ? {} : { onDecodeFailure }),
      ...(image === undefined ? {} : { image }),
    });
    await onBatch?.(batch, result);
    return result.response;
  });
}
