import { ChangeFeedError, ChangeFeedTrimmedError, DynafoldError } from '../../errors';
import { backoffDelay, type Backoff, sleep, log, type Logger } from '../../util';
import { PendingBatch, type AcknowledgementTarget, type ChangeFeedBatch } from '../batch';
import type { ShardPosition } from './lineage';
import type { ShardMeter } from '../metrics';
import { ChangeFeedDefaults } from '../options';
import { abortable, classifyFailure } from './retry';
import { streamAccessDenied, type RecordsPage, type StreamsApi } from './streams-api';
import { TRIMMED_RETAKES, judgeTrimmedRead, type TrimmedVerdict } from './trimmed';
import { recordIteratorAge } from '../../telemetry';

/** What a shard reader needs from its feed. */
export interface ShardReaderContext {
  readonly streamArn: string;
  /** The feed's consumer name, which its metrics carry. @defaultValue the stream's ARN */
  readonly consumer?: string | undefined;
  readonly api: StreamsApi;
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  readonly backoff: Backoff;
  readonly signal: AbortSignal;
  readonly logger: Logger | undefined;
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
 * A trimmed answer is judged by evidence (`judgeTrimmed`): where nothing can be lost, it reads on with a
 * new iterator. Stops quietly when the signal aborts; fails with `ChangeFeedTrimmedError` when records are gone.
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
  let trimmedInARow = 0;
  meter.transition('reading');
  try {
    for (;;) {
      const page = await readFrom(context, shardId, position, iterator);
      if (page === 'expired') {
        iterator = undefined;
        continue;
      }
      if ('trimmed' in page) {
        position = await afterTrimmed(context, shardId, position, trimmedInARow++, page.trimmed);
        iterator = undefined;
        continue;
      }
      trimmedInARow = 0;
      meter.read(page.records.length, page.records.length >= context.batchSize);
      // Records come in sequence order: the first is the oldest (ApproximateCreationDateTime, as Lambda's IteratorAge).
      const created = page.records[0]?.dynamodb?.ApproximateCreationDateTime;
      if (created instanceof Date) recordIteratorAge(context.consumer ?? context.streamArn, Date.now() - created.getTime());
      if (page.records.length > 0) {
        const batch = new PendingBatch(shardId, page.records, context.acknowledgements(shardId));
        yield batch;
        const { completion } = await abortable(warnIfUnacknowledged(context, batch), signal);
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

/** The batch's acknowledgement, with a warning once it is overdue: a forgotten `commit()` stalls the shard silently otherwise. */
function warnIfUnacknowledged(context: ShardReaderContext, batch: PendingBatch): PendingBatch['settled'] {
  const afterMs = context.pollIntervalMs * ChangeFeedDefaults.unacknowledgedWarningPolls;
  const timer = setTimeout(
    () =>
      log(
        context.logger,
        'warn',
        { shardId: batch.shardId, records: batch.records.length, waitingMs: afterMs },
        'batch neither committed nor completed: its shard reads nothing more until it is (call batch.commit() or batch.complete(response) for every batch)',
      ),
    afterMs,
  );
  timer.unref();
  return batch.settled.finally(() => clearTimeout(timer));
}

/** A page read with `iterator`, or with a new iterator from `position` when there is none. */
async function readFrom(
  context: ShardReaderContext,
  shardId: string,
  position: ShardPosition,
  iterator: string | undefined,
): Promise<RecordsPage | 'expired' | { readonly trimmed: unknown }> {
  let current = iterator;
  try {
    current ??= await context.api.shardIterator(shardId, position);
  } catch (error) {
    if (!context.signal.aborted && classifyFailure(error) === 'trimmed') return { trimmed: error };
    throw readFailure(context, 'GetShardIterator', shardId, position, error);
  }
  if (current === undefined) return { records: [], next: undefined };
  try {
    return await context.api.records(current, context.batchSize);
  } catch (error) {
    const kind = context.signal.aborted ? 'fatal' : classifyFailure(error);
    if (kind === 'expiredIterator') {
      log(context.logger, 'info', { shardId }, 'shard iterator expired, acquiring a new one');
      return 'expired';
    }
    if (kind === 'trimmed') return { trimmed: error };
    throw readFailure(context, 'GetRecords', shardId, position, error);
  }
}

/**
 * Where to read after a `TrimmedDataAccessException`, judged by evidence (see `judgeTrimmed`): a new
 * position when nothing can have been lost, else `ChangeFeedTrimmedError`.
 */
async function afterTrimmed(
  context: ShardReaderContext,
  shardId: string,
  position: ShardPosition,
  inARow: number,
  cause: unknown,
): Promise<ShardPosition> {
  const sequenceNumber = 'sequenceNumber' in position ? position.sequenceNumber : undefined;
  const lost = (detail: string) => Object.assign(new ChangeFeedTrimmedError(context.streamArn, shardId, sequenceNumber, detail), { cause });
  if (inARow >= TRIMMED_RETAKES) {
    throw lost(`reads from ${describePosition(position)} answered TrimmedDataAccessException ${inARow + 1} times in a row`);
  }
  let verdict: TrimmedVerdict;
  try {
    verdict = await judgeTrimmedRead(context.api, shardId, position);
  } catch (error) {
    if (context.signal.aborted || classifyFailure(error) !== 'trimmed') throw readFailure(context, 'GetRecords', shardId, position, error);
    await sleep(backoffDelay(inARow, context.backoff), context.signal);
    return position; // the shard could not be looked at just now: judge again on the next answer
  }
  if (verdict.kind === 'lost') throw lost(verdict.detail);
  log(
    context.logger,
    'info',
    { shardId, from: describePosition(position), to: describePosition(verdict.position) },
    `shard read answered TrimmedDataAccessException, but ${verdict.reason}: reading on with a new iterator`,
  );
  if (inARow > 0) await sleep(backoffDelay(inARow - 1, context.backoff), context.signal);
  return verdict.position;
}

function describePosition(position: ShardPosition): string {
  return 'sequenceNumber' in position ? `${position.type} ${position.sequenceNumber}` : position.type;
}

/**
 * Turns a read's SDK error into the feed's: records gone are `ChangeFeedTrimmedError`, a refused read
 * `AccessDeniedError`, anything else `ChangeFeedError`.
 */
function readFailure(context: ShardReaderContext, operation: string, shardId: string, position: ShardPosition, error: unknown): unknown {
  if (context.signal.aborted || error instanceof DynafoldError) return error;
  const kind = classifyFailure(error);
  const sequenceNumber = 'sequenceNumber' in position ? position.sequenceNumber : undefined;
  if (kind === 'notFound' && operation === 'GetShardIterator') {
    const gone = new ChangeFeedTrimmedError(context.streamArn, shardId, sequenceNumber, 'the shard left the stream before it was read to its end');
    return Object.assign(gone, { cause: error });
  }
  return streamAccessDenied(operation, context.streamArn, error) ?? new ChangeFeedError(operation, error);
}
