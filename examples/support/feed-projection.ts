/**
 * The change feed of the events table run into a projection with `runChangeFeed`, with a tally of what
 * each batch applied, so that the caller can wait until the rows caught up and time the live path.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  ChangeFeedConsumer,
  DynamoCheckpointStore,
  runChangeFeed,
  type ChangeFeedBatch,
} from 'dynafold/feed';
import type { OrderEvent, OrderSummaryProjection } from './orders';

/** What the feed has done so far. */
export class FeedTally {
  batches = 0;
  records = 0;
  rowsWritten = 0;
  failedRows = 0;
  /** Every event of every outcome's `applied`, in the order the batches applied them. */
  readonly applied: OrderEvent[] = [];
  /** When each event (`streamId@version`) was applied, by `performance.now()`. */
  readonly appliedAt = new Map<string, number>();
  private waiters: Array<() => void> = [];
  private failure: { error: unknown } | undefined;

  record(events: ReadonlyArray<OrderEvent>): void {
    const now = performance.now();
    for (const event of events) {
      this.applied.push(event);
      this.appliedAt.set(eventId(event), now);
    }
  }

  /** Wakes whoever waits in `until`: call after each batch. */
  changed(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** The run ended with `error`: waiting is over. */
  failed(error: unknown): void {
    this.failure = { error };
    this.changed();
  }

  /** Resolves once `done()` holds, checked after every batch; rejects after `timeoutMs` or if the run failed. */
  async until(
    done: () => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!done()) {
      if (this.failure !== undefined) throw this.failure.error;
      const left = deadline - performance.now();
      if (left <= 0)
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

export function eventId(event: {
  readonly streamId: string;
  readonly version: number;
}): string {
  return `${event.streamId}@${event.version}`;
}

export interface ProjectionFeed {
  readonly feed: ChangeFeedConsumer;
  readonly tally: FeedTally;
  /** Settles when the run ends: after `feed.stop()`, or when the feed fails. */
  readonly running: Promise<void>;
}

export interface ProjectionFeedOptions {
  readonly client: DynamoDBClient;
  readonly streams: DynamoDBStreamsClient;
  readonly streamArn: string;
  readonly checkpointTable: string;
  readonly projection: OrderSummaryProjection;
  readonly batchSize: number;
  /** Called after each batch is processed, before it is acknowledged. */
  readonly progress?: (
    batch: ChangeFeedBatch,
    tally: FeedTally,
    feed: ChangeFeedConsumer,
  ) => void;
}

export function startProjectionFeed(
  options: ProjectionFeedOptions,
): ProjectionFeed {
  const tally = new FeedTally();
  const feed = new ChangeFeedConsumer({
    streamsClient: options.streams,
    streamArn: options.streamArn,
    consumer: 'quickstart-summaries',
    checkpoints: new DynamoCheckpointStore({
      client: options.client,
      table: options.checkpointTable,
    }),
    pollIntervalMs: 100,
    batchSize: options.batchSize,
  });
  const running = runChangeFeed(feed, {
    projections: [options.projection],
    onBatch: (result, batch) => {
      tally.batches++;
      tally.records += batch.records.length;
      for (const outcome of result.outcomes[options.projection.name] ??
        []) {
        if (outcome.status === 'failed') {
          tally.failedRows++;
          continue;
        }
        if (outcome.applied.length > 0) tally.rowsWritten++;
        tally.record(outcome.applied);
      }
      options.progress?.(batch, tally, feed);
      tally.changed();
    },
  });
  running.catch((error: unknown) => tally.failed(error));
  return { feed, tally, running };
}
