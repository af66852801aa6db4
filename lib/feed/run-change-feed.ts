import { answerAfter, processBatch, type OnBatch, type ProcessBatchOptions } from '../lambda';
import { projectionsOf, type ProjectionSet } from '../outcome';
import { ConfigurationError } from '../errors';
import type { AnyEventStream } from '../store';
import type { ChangeFeedBatch, ChangeFeedRecord } from './batch';
import { runBatches, type ChangeFeedSource } from './run-batches';
import { Attr, inProcessSpan, processSpan } from '../telemetry';

/**
 * Projections as `processBatch` takes them: a list, each reported under its `name`.
 *
 * @example
 * ```ts
 * const projections: FeedProjections = [OrderSummaryProjection]
 * ```
 */
export type FeedProjections = ProjectionSet;

/**
 * Options of {@link runChangeFeed}: what `processBatch` takes (projections, streams, onDecodeFailure,
 * image) except how records are identified, which is always their SequenceNumber, plus `onBatch`.
 *
 * @example
 * ```ts
 * const options: RunChangeFeedOptions<[typeof OrderSummaryProjection], {}> = {
 *   projections: [OrderSummaryProjection],
 *   onDecodeFailure: 'skip',
 * }
 * ```
 */
export interface RunChangeFeedOptions<P extends FeedProjections, St extends Record<string, AnyEventStream>> extends Omit<
  ProcessBatchOptions<P, St, ChangeFeedRecord>,
  'source' | 'identifier'
> {
  /**
   * Runs after a batch is processed and before it is acknowledged (see `OnBatch`); `input` is the feed's
   * batch. Positions pushed to `result.failedRecords` are reported with the batch's failures. If it throws,
   * the run ends without acknowledging the batch, so the batch is read again on restart.
   */
  readonly onBatch?: OnBatch<P, St, ChangeFeedRecord, ChangeFeedBatch> | undefined;
  /**
   * Stop the feed once it has caught up (see `ChangeFeedConsumer.whenCaughtUp`) and resolve: a script that
   * brings its read models up to date and exits. @defaultValue false
   */
  readonly stopWhenCaughtUp?: boolean | undefined;
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
 *   projections: [OrderSummaryProjection], // named 'order-summaries'
 *   onBatch: (result, batch) => console.log(batch.shardId, result.outcomes['order-summaries']?.length),
 * })
 * ```
 */
export function runChangeFeed<P extends FeedProjections, St extends Record<string, AnyEventStream> = Record<string, never>>(
  feed: ChangeFeedSource,
  options: RunChangeFeedOptions<P, St>,
): Promise<void> {
  const { onBatch, stopWhenCaughtUp, ...processOptions } = options;
  const { signal } = options;
  if (signal?.aborted === true) {
    // Aborted already: the feed is stopped before it sends a request, and the run rejects with the reason.
    const reason: unknown = signal.reason;
    return Promise.resolve(feed.stop()).then(() => Promise.reject(reason));
  }
  if (stopWhenCaughtUp === true) {
    if (typeof feed.whenCaughtUp !== 'function')
      return Promise.reject(new ConfigurationError('`stopWhenCaughtUp` needs a feed with `whenCaughtUp()`, such as a ChangeFeedConsumer.'));
    // A feed that fails instead rejects the run below with its error: nothing to add here.
    feed.whenCaughtUp().then(
      () => feed.stop(),
      () => undefined,
    );
  }
  // Aborted later: the feed stops (no new read), the rows in flight fail with the reason (reported, so read
  // again by the next run), and the run rejects with the reason.
  const stop = () => void feed.stop();
  signal?.addEventListener('abort', stop, { once: true });
  const tables = [...projectionsOf(options.projections).flatMap((projection) => projection.streams), ...Object.values(options.streams ?? {})];
  const run = runBatches(feed, (batch) =>
    // The batch's span covers processBatch (which takes it as its own) and `onBatch`.
    inProcessSpan(
      processSpan(
        'feed',
        tables.map((stream) => stream.table),
        batch.records.length,
        { [Attr.messagingPartition]: batch.shardId },
      ),
      async () => {
        const result = await processBatch<P, St, ChangeFeedRecord>(batch.records, { ...processOptions, source: 'lambda' });
        return answerAfter(batch.records, result, { source: 'lambda' }, onBatch, batch);
      },
    ),
  );
  return run
    .then(
      () => (signal?.aborted === true ? Promise.reject(signal.reason as unknown) : undefined),
      (error: unknown) => Promise.reject(signal?.aborted === true ? (signal.reason as unknown) : error),
    )
    .finally(() => signal?.removeEventListener('abort', stop));
}
