import { processBatch, type Projection, type ProcessBatchOptions, type ProcessResult } from '../projector';
import type { AnyEventStream } from '../store';
import type { ChangeFeedBatch, ChangeFeedRecord } from './batch';
import { runBatches, type ChangeFeedSource } from './run-batches';

/** Projections by name, as `processBatch` takes them. */
export type FeedProjections = Record<string, Projection<AnyEventStream, never, never> | Projection>;

/**
 * Options of {@link runChangeFeed}: `processBatch`'s options (projections, streams, onDecodeFailure,
 * image, ...) except how records are identified, which is always their SequenceNumber, plus `onBatch`.
 */
export type RunChangeFeedOptions<P extends FeedProjections, St extends Record<string, AnyEventStream>> = Omit<
  ProcessBatchOptions<P, St, ChangeFeedRecord>,
  'source' | 'identifier'
> & {
  /**
   * Runs after a batch is processed and before it is acknowledged, to act on applied or unrouted events.
   * If it fails, the run ends without acknowledging the batch, so the batch is read again on restart.
   */
  readonly onBatch?: (batch: ChangeFeedBatch, result: ProcessResult<P, St, ChangeFeedRecord>) => unknown;
};

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
  const { onBatch, ...processing } = options;
  return runBatches(feed, async (batch) => {
    const result = await processBatch<P, St, ChangeFeedRecord>(batch.records, { ...processing, source: 'lambda' });
    await onBatch?.(batch, result);
    return result.response;
  });
}
