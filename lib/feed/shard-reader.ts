import { ChangeFeedError, ChangeFeedTrimmedError, DynafoldError } from '../errors';
import { backoffDelay, type Backoff } from '../util/backoff';
import { sleep } from '../util/sleep';
import { PendingBatch, type AcknowledgementTarget, type ChangeFeedBatch } from './batch';
import type { ShardPosition } from './lineage';
import { log, type ChangeFeedLogger } from './logger';
import type { ShardMeter } from './metrics';
import { abortable, classifyFailure } from './retry';
import type { RecordsPage, StreamsApi } from './streams-api';

/** What a shard reader needs from its feed. */
export interface ShardReaderContext {
  readonly streamArn: string;
  readonly api: StreamsApi;
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  readonly backoff: Backoff;
  readonly signal: AbortSignal;
  readonly logger: ChangeFeedLogger | undefined;
  /** Writes checkpoints and guards them with the lease. */
  readonly acknowledgements: (shardId: string) => AcknowledgementTarget;
  /** Whether a shard that returned no next iterator is closed; describes the stream again if need be. */
  readonly confirmClosed: (shardId: string) => Promise<boolean>;
  /** Checkpoints the shard as finished (retrying transient failures). */
  readonly finish: (shardId: string) => Promise<void>;
}

/**
 * Reads one shard from `position` to its end, as an AsyncIterable of batches. After yielding a batch it
 * waits for its acknowledgement before reading again: a success moves on past the batch, a failure
 * re-reads from the earliest failed record after a backoff that grows with consecutive failures. An
 * expired iterator is acquired again from the position; an open shard that returns no iterator is
 * retried after a backoff, never finished. Once drained, the shard is checkpointed as finished.
 * Stops quietly when the signal aborts; fails with `ChangeFeedTrimmedError` when its records are gone.
 *
 * @example
 * ```ts
 * for await (const batch of readShard(context, 'shardId-1', { type: 'TRIM_HORIZON' }, meter)) {
 *   await batch.commit()
 * }
 * ```
 */
export async function* readShard(
  context: ShardReaderContext,
  shardId: string,
  start: ShardPosition,
  meter: ShardMeter,
): AsyncGenerator<ChangeFeedBatch, void, undefined> {
  const { signal } = context;
  let position = start;
  let iterator: string | undefined;
  let failedAcks = 0;
  let openWithoutIterator = 0;
  meter.transition('reading');
  try {
    for (;;) {
      iterator ??= await acquireIterator(context, shardId, position);
      const page = iterator === undefined ? { records: [], next: undefined } : await readPage(context, shardId, position, iterator);
      if (page === 'expired') {
        iterator = undefined;
        continue;
      }
      meter.read(page.records.length, page.records.length >= context.batchSize);
      if (page.records.length > 0) {
        const batch = new PendingBatch(shardId, page.records, context.acknowledgements(shardId));
        yield batch;
        const { completion } = await abortable(batch.settled, signal);
        meter.settled(completion.kind === 'batch' ? undefined : completion.checkpoint, completion.kind !== 'all');
        if (completion.kind !== 'all') {
          log(context.logger, 'warn', { shardId, retryFrom: completion.retryFrom, completion }, 'batch acknowledged with failures, reading again');
          position = { type: 'AT_SEQUENCE_NUMBER', sequenceNumber: completion.retryFrom };
          iterator = undefined;
          await sleep(backoffDelay(failedAcks++, context.backoff), signal);
          continue;
        }
        failedAcks = 0;
        position = { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: completion.checkpoint };
      }
      if (page.next === undefined) {
        if (await context.confirmClosed(shardId)) break;
        // An open shard with no iterator is never finished: the shard list was refreshed, try again later.
        log(context.logger, 'warn', { shardId }, 'open shard returned no iterator, retrying');
        iterator = undefined;
        await sleep(backoffDelay(openWithoutIterator++, context.backoff), signal);
        continue;
      }
      openWithoutIterator = 0;
      iterator = page.next;
      if (page.records.length === 0) await sleep(context.pollIntervalMs, signal);
    }
    await context.finish(shardId);
    meter.transition('finished');
    log(context.logger, 'info', { shardId }, 'shard read to its end');
  } finally {
    if (meter.state === 'reading') meter.transition('waiting');
  }
}

async function acquireIterator(context: ShardReaderContext, shardId: string, position: ShardPosition): Promise<string | undefined> {
  try {
    return await context.api.shardIterator(shardId, position);
  } catch (error) {
    throw readFailure(context, 'GetShardIterator', shardId, position, error);
  }
}

async function readPage(
  context: ShardReaderContext,
  shardId: string,
  position: ShardPosition,
  iterator: string,
): Promise<RecordsPage | 'expired'> {
  try {
    return await context.api.records(iterator, context.batchSize);
  } catch (error) {
    if (!context.signal.aborted && classifyFailure(error) === 'expiredIterator') {
      log(context.logger, 'info', { shardId }, 'shard iterator expired, acquiring a new one');
      return 'expired';
    }
    throw readFailure(context, 'GetRecords', shardId, position, error);
  }
}

/** Turns a read's SDK error into the feed's: records gone are `ChangeFeedTrimmedError`, anything else `ChangeFeedError`. */
function readFailure(context: ShardReaderContext, operation: string, shardId: string, position: ShardPosition, error: unknown): unknown {
  if (context.signal.aborted || error instanceof DynafoldError) return error;
  const kind = classifyFailure(error);
  const sequenceNumber = 'sequenceNumber' in position ? position.sequenceNumber : undefined;
  if (kind === 'trimmed') {
    const trimmed = new ChangeFeedTrimmedError(context.streamArn, shardId, sequenceNumber, 'the position is past the stream’s retention');
    return Object.assign(trimmed, { cause: error });
  }
  if (kind === 'notFound' && operation === 'GetShardIterator') {
    const gone = new ChangeFeedTrimmedError(context.streamArn, shardId, sequenceNumber, 'the shard left the stream before it was read to its end');
    return Object.assign(gone, { cause: error });
  }
  return new ChangeFeedError(operation, error);
}
