import type { DynamoDBStreamsClient, _Record } from '@aws-sdk/client-dynamodb-streams';
import { ChangeFeedTrimmedError, ValidationError } from '../errors';
import { processBatch, type AnyProjection, type ProcessBatchOptions, type ProcessResult } from '../projector';
import type { AnyEventStream } from '../store';
import { classifyFailure } from './retry';
import { Semaphore } from '../util';
import { StreamsApi } from './streams-api';
import { compareSequenceNumbers } from './trimmed';

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
export interface ReplayFailureOptions<P extends Record<string, AnyProjection>, St extends Record<string, AnyEventStream>> extends Omit<
  ProcessBatchOptions<P, St, _Record>,
  'source' | 'identifier'
> {
  readonly streamsClient: DynamoDBStreamsClient;
  readonly signal?: AbortSignal | undefined;
}

/** Empty pages in a row after which a shard counts as read to its present end. */
const EMPTY_PAGES = 5;

/**
 * Processes again a batch Lambda gave up on (`MaximumRetryAttempts` or `MaximumRecordAgeInSeconds`), from
 * the OnFailure destination's message: an invocation record, an SQS message (its `body`) or an SNS
 * notification (its `Message`). It reads the batch's records from the stream (AT_SEQUENCE_NUMBER start,
 * through end) and runs them through `processBatch`; the projections' checkpoints skip what was applied.
 * Resolves the result: a response with failures means the replay did not complete (throw, so the
 * destination queue retries). Records past the stream's 24-hour retention, or a shard gone, fail with
 * `ChangeFeedTrimmedError` saying what to do.
 *
 * @example
 * ```ts
 * export const handler = async (event: SQSEvent) => {
 *   for (const message of event.Records) {
 *     const result = await replayFailure(message, { streamsClient, projections: { summaries } })
 *     if (result.response.batchItemFailures.length > 0) throw new Error('replay incomplete')
 *   }
 * }
 * ```
 */
export async function replayFailure<P extends Record<string, AnyProjection>, St extends Record<string, AnyEventStream> = Record<string, never>>(
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
  return processBatch<P, St, _Record>(records, { ...processOptions, source: 'lambda' });
}

/** The batch coordinates in an OnFailure destination's message, as it reaches a handler. */
export function streamBatchInfo(message: unknown): StreamBatchInfo {
  const record = unwrap(message) as { DDBStreamBatchInfo?: Partial<StreamBatchInfo> | undefined } | undefined;
  const info = record?.DDBStreamBatchInfo;
  for (const field of ['streamArn', 'shardId', 'startSequenceNumber', 'endSequenceNumber'] as const) {
    if (typeof info?.[field] !== 'string') {
      throw new ValidationError(
        `Not a DynamoDB Streams failure record: DDBStreamBatchInfo.${field} is missing. Pass the OnFailure destination's message (its SQS body or SNS Message).`,
      );
    }
  }
  return info as StreamBatchInfo;
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
    backoff: { initialMs: 50, maxMs: 2_000 },
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
    throw error;
  }
  const records: _Record[] = [];
  for (let empty = 0; iterator !== undefined && empty < EMPTY_PAGES;) {
    const page = await api.records(iterator, 1000);
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
