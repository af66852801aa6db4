import type { ChangeFeedBatch } from './batch';
import type { PartialBatchResponse } from '../lambda';

/**
 * A feed `runBatches` can drive: its batches, and a way to stop it when a handler fails.
 * A {@link ChangeFeedConsumer} is one.
 *
 * @example
 * ```ts
 * const source: ChangeFeedSource = new ChangeFeedConsumer(options)
 * ```
 */
export interface ChangeFeedSource extends AsyncIterable<ChangeFeedBatch> {
  stop(): unknown;
  /** Resolves once the feed has caught up (see `ChangeFeedConsumer.whenCaughtUp`); needed by `stopWhenCaughtUp`. */
  whenCaughtUp?(): Promise<void>;
}

/**
 * Processes a feed's batches: shards concurrently, each shard's batches in order (a shard's next batch
 * only arrives once the previous one is acknowledged), acknowledging each with `complete(response)`.
 * Resolves when the feed ends (the table's stream disabled and every shard drained, or `stop()`), after
 * the batches in hand are acknowledged. If `handle` or an acknowledgement fails, the feed is stopped
 * and the run rejects with that error, the failed batch unacknowledged so that it is read again; if the
 * feed fails, the run rejects with the feed's error.
 *
 * @example
 * ```ts
 * await runBatches(feed, async (batch) => {
 *   const failed = await project(batch.records)
 *   return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.dynamodb!.SequenceNumber! })) }
 * })
 * ```
 */
export async function runBatches(feed: ChangeFeedSource, handle: (batch: ChangeFeedBatch) => Promise<PartialBatchResponse>): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  let handlerFailure: { error: unknown } | undefined;
  let feedFailure: { error: unknown } | undefined;

  const process = async (batch: ChangeFeedBatch) => {
    try {
      const response = await handle(batch);
      if (handlerFailure !== undefined) return; // the run is ending: leave the batch to be read again
      await batch.complete(response);
    } catch (error) {
      handlerFailure ??= { error };
      // Stopping ends the iteration below even while it waits for a batch.
      void feed.stop();
    }
  };

  try {
    for await (const batch of feed) {
      if (handlerFailure !== undefined) break;
      const task = process(batch);
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    }
  } catch (error) {
    feedFailure = { error };
  }
  await Promise.all(inFlight);
  if (feedFailure !== undefined) throw feedFailure.error;
  if (handlerFailure !== undefined) throw handlerFailure.error;
}
