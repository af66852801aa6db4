import type { DynamoDBStreamsClient, _Record } from '@aws-sdk/client-dynamodb-streams';
import { ChangeFeedError, ChangeFeedTrimmedError, ReplayRangeError, ValidationError } from '../errors';
import { processBatch, type ProcessBatchOptions, type ProcessResult } from '../lambda';
import type { ProjectionSet } from '../outcome';
import type { AnyEventStream } from '../store';
import { classifyFailure, StreamsApi, compareSequenceNumbers } from './shards';
import { Semaphore } from '../util';

/**
 * What a Lambda event source mapping's OnFailure destination (SQS or SNS) receives for a batch it gave
 * up on: the batch's coordinates in the stream (`DDBStreamBatchInfo`), not its records.
 */
export interface StreamBatchInfo {
  readonly streamArn: string;
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  readonly approximateArrivalOfFirstRecord?: string | undefined;
  readonly approximateArrivalOfLastRecord?: string | undefined;
  readonly batchSize?: number | undefined;
}

/** Options of {@link replayFailure}: `processBatch`'s, records being identified by their SequenceNumber. */
export interface ReplayFailureOptions<P extends ProjectionSet, St extends Record<string, AnyEventStream>> extends Omit<
  ProcessBatchOptions<P, St, _Record>,
  'source' | 'identifier'
> {
  readonly streamsClient: DynamoDBStreamsClient;
  readonly signal?: AbortSignal | undefined;
}

/** Empty pages in a row after which a shard counts as read to its present end. */
const EMPTY_PAGES = 5;

/**
 * How a replay's Streams calls are retried: transient failures a few times (a replay is one-off work, and a
 * sequence number DynamoDB keeps answering with a 500 must not hold it for ever), then the error is thrown
 * (a `ChangeFeedError`, transient, so the message's queue retries it later).
 */
const REPLAY_RETRY = { attempts: 6, backoff: { initialMs: 50, maxMs: 2_000 } } as const;

/** A DynamoDB Streams sequence number: 21 to 40 decimal digits. */
const SEQUENCE_NUMBER = /^[0-9]{21,40}$/;

/**
 * Processes again a batch Lambda gave up on (`MaximumRetryAttempts` or `MaximumRecordAgeInSeconds`), from
 * the OnFailure destination's message: an invocation record, an SQS message (its `body`) or an SNS
 * notification (its `Message`). It reads the batch's records from the stream (AT_SEQUENCE_NUMBER start,
 * through end) and runs them through `processBatch`; the projections' checkpoints skip what was applied.
 * Resolves the result: a response with failures means the replay did not complete (throw, so the
 * destination queue retries). Records past the stream's 24-hour retention, or a shard gone, fail with
 * `ChangeFeedTrimmedError` saying what to do. A malformed message (see {@link streamBatchInfo}) is a
 * `ValidationError` before any request; a range that holds no record, or fewer than the message's
 * `batchSize`, is a `ReplayRangeError` and nothing is processed; Streams calls that keep failing
 * transiently are given up after a few tries with a `ChangeFeedError`. Once `signal` aborted no request
 * starts and the call rejects with its reason.
 *
 * @example
 * ```ts
 * export const handler = async (event: SQSEvent) => {
 *   for (const message of event.Records) {
 *     const result = await replayFailure(message, { streamsClient, projections: [summaries] })
 *     if (result.response.batchItemFailures.length > 0) throw new Error('replay incomplete')
 *   }
 * }
 * ```
 */
export async function replayFailure<P extends ProjectionSet, St extends Record<string, AnyEventStream> = Record<string, never>>(
  message: unknown,
  options: ReplayFailureOptions<P, St>,
): Promise<ProcessResult<P, St, _Record>> {
  const info = streamBatchInfo(message);
  const { streamsClient, ...processOptions } = options;
  const { signal } = options;
  // Aborted already: no request starts.
  signal?.throwIfAborted();
  const records = await readBatch(streamsClient, info, signal ?? new AbortController().signal).catch((error: unknown) => {
    // A read cut short by the caller rejects with the caller's reason, as fetch does.
    signal?.throwIfAborted();
    throw error;
  });
  // Aborted while reading: no row starts either.
  signal?.throwIfAborted();
  // A range that held nothing, or less than the batch, is no replay: resolving would let the caller delete
  // the message unprocessed.
  if (records.length === 0 || (info.batchSize !== undefined && records.length < info.batchSize)) {
    throw new ReplayRangeError(info.streamArn, info.shardId, info.startSequenceNumber, info.endSequenceNumber, info.batchSize, records.length);
  }
  return processBatch<P, St, _Record>(records, { ...processOptions, source: 'lambda' });
}

/**
 * The batch coordinates in an OnFailure destination's message, as it reaches a handler. A message that is
 * none, or whose range is malformed (a sequence number that is not 21 to 40 digits, a start after the end,
 * a `batchSize` that is not a positive integer), is a `ValidationError` naming the field, before any request.
 */
export function streamBatchInfo(message: unknown): StreamBatchInfo {
  const record = unwrap(message) as { DDBStreamBatchInfo?: Partial<StreamBatchInfo> | undefined } | undefined;
  const info = record?.DDBStreamBatchInfo;
  for (const field of ['streamArn', 'shardId', 'startSequenceNumber', 'endSequenceNumber'] as const) {
    if (typeof info?.[field] !== 'string' || info[field] === '') {
      throw new ValidationError(
        `Not a DynamoDB Streams failure record: DDBStreamBatchInfo.${field} is missing. Pass the OnFailure destination's message (its SQS body or SNS Message).`,
        [{ path: ['DDBStreamBatchInfo', field], message: 'missing' }],
      );
    }
  }
  const batch = info as StreamBatchInfo;
  for (const field of ['startSequenceNumber', 'endSequenceNumber'] as const) {
    if (!SEQUENCE_NUMBER.test(batch[field])) {
      throw new ValidationError(
        `DDBStreamBatchInfo.${field} is ${JSON.stringify(batch[field])}, not a sequence number (21 to 40 digits): pass the message the OnFailure destination received, unchanged.`,
        [{ path: ['DDBStreamBatchInfo', field], message: 'not a sequence number' }],
      );
    }
  }
  if (compareSequenceNumbers(batch.startSequenceNumber, batch.endSequenceNumber) > 0) {
    throw new ValidationError(
      `DDBStreamBatchInfo.startSequenceNumber ${batch.startSequenceNumber} is after endSequenceNumber ${batch.endSequenceNumber}: the range is inverted. Pass the message the OnFailure destination received, unchanged.`,
      [{ path: ['DDBStreamBatchInfo', 'startSequenceNumber'], message: 'after endSequenceNumber' }],
    );
  }
  const size: unknown = batch.batchSize;
  if (size !== undefined && !(typeof size === 'number' && Number.isSafeInteger(size) && size >= 1)) {
    throw new ValidationError(`DDBStreamBatchInfo.batchSize is ${JSON.stringify(size)}, not a positive integer.`, [
      { path: ['DDBStreamBatchInfo', 'batchSize'], message: 'not a positive integer' },
    ]);
  }
  return batch;
}

/** The invocation record inside an SQS message (`body`) or an SNS notification (`Sns.Message` / `Message`), given as objects or JSON. */
function unwrap(message: unknown): unknown {
  let value = typeof message === 'string' ? parse(message) : message;
  for (let depth = 0; depth < 3 && typeof value === 'object' && value !== null && !('DDBStreamBatchInfo' in value); depth++) {
    const candidate = value as { body?: unknown; Message?: unknown; Sns?: { Message?: unknown } | undefined };
    const inner = candidate.body ?? candidate.Sns?.Message ?? candidate.Message;
    value = typeof inner === 'string' ? parse(inner) : inner;
  }
  return value;
}

function parse(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch (cause) {
    throw new ValidationError('The failure record is not JSON.', [], { cause });
  }
}

async function readBatch(client: DynamoDBStreamsClient, info: StreamBatchInfo, signal: AbortSignal): Promise<_Record[]> {
  const api = new StreamsApi({
    client,
    streamArn: info.streamArn,
    reads: new Semaphore(1),
    ...REPLAY_RETRY,
    signal,
    logger: undefined,
  });
  const window = `sequence numbers ${info.startSequenceNumber} to ${info.endSequenceNumber}${
    info.approximateArrivalOfFirstRecord === undefined
      ? ''
      : `, written about ${info.approximateArrivalOfFirstRecord} to ${info.approximateArrivalOfLastRecord ?? '?'}`
  }`;
  const gone = (cause: unknown) =>
    new ChangeFeedTrimmedError(
      info.streamArn,
      info.shardId,
      info.startSequenceNumber,
      `the batch's records (${window}) are past the stream's 24-hour retention, or their shard is gone. The rows they addressed heal at their next event; to bring them up now, catchUp the stream instances appended in that window`,
      { cause },
    );
  let iterator: string | undefined;
  try {
    iterator = await api.shardIterator(info.shardId, { type: 'AT_SEQUENCE_NUMBER', sequenceNumber: info.startSequenceNumber });
  } catch (error) {
    const kind = classifyFailure(error);
    if (kind === 'trimmed' || kind === 'notFound') throw gone(error);
    throw failure('GetShardIterator', error, signal);
  }
  const records: _Record[] = [];
  for (let empty = 0; iterator !== undefined && empty < EMPTY_PAGES;) {
    const page = await api.records(iterator, 1000).catch((error: unknown) => {
      throw classifyFailure(error) === 'trimmed' ? gone(error) : failure('GetRecords', error, signal);
    });
    empty = page.records.length === 0 ? empty + 1 : 0;
    for (const record of page.records) {
      const sequenceNumber = record.dynamodb?.SequenceNumber;
      if (sequenceNumber === undefined) continue;
      if (compareSequenceNumbers(sequenceNumber, info.endSequenceNumber) > 0) return records;
      records.push(record);
    }
    if (records.at(-1)?.dynamodb?.SequenceNumber === info.endSequenceNumber) return records;
    iterator = page.next;
  }
  return records;
}

/**
 * A replay's failed Streams call as a dynafold error: DynamoDB refusing the message's coordinates
 * (`ValidationException`) a `ValidationError`, anything else a `ChangeFeedError` with the SDK error as cause
 * (transient when that is: retried a few times already). A caller's abort passes as it is.
 */
function failure(operation: string, error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return error;
  if (error instanceof Error && error.name === 'ValidationException') {
    return new ValidationError(`DynamoDB Streams refused the failure record's coordinates (${operation}): ${error.message}`, [], { cause: error });
  }
  return new ChangeFeedError(operation, error);
}
