import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import { AccessDeniedError, ChangeFeedError, StreamNotFoundError } from '../../errors';
import type { Backoff, Logger, Semaphore } from '../../util';
import { toShardInfo, type ShardInfo, type ShardPosition } from './lineage';
import { classifyFailure, retrying } from './retry';

/** The stream as one describe saw it. */
export interface StreamSnapshot {
  readonly status: string | undefined;
  readonly shards: ReadonlyArray<ShardInfo>;
}

/** One GetRecords answer; `next` is undefined once a closed shard is drained. */
export interface RecordsPage {
  readonly records: ReadonlyArray<_Record>;
  readonly next: string | undefined;
}

/** Settings shared by every Streams call of one feed. */
export interface StreamsApiOptions {
  readonly client: DynamoDBStreamsClient;
  readonly streamArn: string;
  readonly reads: Semaphore;
  readonly backoff: Backoff;
  readonly signal: AbortSignal;
  readonly logger: Logger | undefined;
  /** Attempts of each call at most, transient failures included. @defaultValue no limit (a feed retries them for ever) */
  readonly attempts?: number | undefined;
}

/**
 * The Streams API calls of one feed. Throttling and transient errors are retried without limit;
 * GetShardIterator and GetRecords each hold one `maxConcurrentReads` permit while in flight. Describe
 * calls turn any other failure into `ChangeFeedError`; shard reads rethrow it for the reader to judge
 * (an expired iterator or trimmed records mean different things there).
 */
export class StreamsApi {
  constructor(private readonly options: StreamsApiOptions) {}

  /** Every shard of the stream, following `LastEvaluatedShardId` page by page. */
  async describe(): Promise<StreamSnapshot> {
    const shards: ShardInfo[] = [];
    let status: string | undefined;
    let exclusiveStartShardId: string | undefined;
    do {
      const page = await this.call('DescribeStream', (abortSignal) =>
        this.options.client.send(new DescribeStreamCommand({ StreamArn: this.options.streamArn, ExclusiveStartShardId: exclusiveStartShardId }), {
          abortSignal,
        }),
      ).catch((error: unknown) => this.fail('DescribeStream', error));
      const description = page.StreamDescription;
      status = description?.StreamStatus ?? status;
      for (const shard of description?.Shards ?? []) {
        const info = toShardInfo(shard);
        if (info !== undefined) shards.push(info);
      }
      exclusiveStartShardId = description?.LastEvaluatedShardId;
    } while (exclusiveStartShardId !== undefined);
    return { status, shards };
  }

  /**
   * The children of a shard, found with `ShardFilter: CHILD_SHARDS`; undefined where the filter is not
   * supported, so that the caller falls back to a full describe.
   */
  async childShards(shardId: string): Promise<ShardInfo[] | undefined> {
    try {
      const page = await this.call('DescribeStream', (abortSignal) =>
        this.options.client.send(
          new DescribeStreamCommand({ StreamArn: this.options.streamArn, ShardFilter: { Type: 'CHILD_SHARDS', ShardId: shardId } }),
          { abortSignal },
        ),
      );
      // A server that ignores the filter answers with every shard: keep the children only.
      return (page.StreamDescription?.Shards ?? []).flatMap((shard) => toShardInfo(shard) ?? []).filter((s) => s.parentShardId === shardId);
    } catch (error) {
      if (this.options.signal.aborted) throw error;
      if (classifyFailure(error) === 'fatal' && error instanceof Error && error.name === 'ValidationException') return undefined;
      return this.fail('DescribeStream', error);
    }
  }

  /** An iterator from `position`; SDK errors other than transient ones are rethrown as they are. */
  async shardIterator(shardId: string, position: ShardPosition): Promise<string | undefined> {
    const sequenceNumber = 'sequenceNumber' in position ? position.sequenceNumber : undefined;
    const answer = await this.read('GetShardIterator', (abortSignal) =>
      this.options.client.send(
        new GetShardIteratorCommand({
          StreamArn: this.options.streamArn,
          ShardId: shardId,
          ShardIteratorType: position.type,
          SequenceNumber: sequenceNumber,
        }),
        { abortSignal },
      ),
    );
    return answer.ShardIterator;
  }

  /** Up to `limit` records from `iterator`; SDK errors other than transient ones are rethrown as they are. */
  async records(iterator: string, limit: number): Promise<RecordsPage> {
    const answer = await this.read('GetRecords', (abortSignal) =>
      this.options.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }), { abortSignal }),
    );
    return { records: answer.Records ?? [], next: answer.NextShardIterator };
  }

  /**
   * The sequence number of the oldest record a shard still holds, `undefined` when it holds none. A fresh
   * iterator may answer a few empty pages before the first record, so up to `pages` pages are read.
   */
  async oldestRecord(shardId: string, pages = 5): Promise<string | undefined> {
    let iterator = await this.shardIterator(shardId, { type: 'TRIM_HORIZON' });
    for (let page = 0; page < pages && iterator !== undefined; page++) {
      const answer = await this.records(iterator, 1);
      const first = answer.records[0]?.dynamodb?.SequenceNumber;
      if (first !== undefined) return first;
      iterator = answer.next;
    }
    return undefined;
  }

  private read<T>(operation: string, send: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    // A permit per attempt, not per retried call: a throttled reader must not hold one while it backs off.
    return this.call(operation, (abortSignal) => this.options.reads.use(() => send(abortSignal), abortSignal));
  }

  private call<T>(operation: string, send: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    const { backoff, signal, logger, attempts } = this.options;
    return retrying(() => send(signal), { backoff, signal, logger, operation, attempts });
  }

  private fail(operation: string, error: unknown): never {
    if (this.options.signal.aborted) throw error;
    const { streamArn } = this.options;
    if (error instanceof Error && error.name === 'ResourceNotFoundException')
      throw new StreamNotFoundError(operation, streamArn, tableOfStream(streamArn), { cause: error });
    throw streamAccessDenied(operation, streamArn, error) ?? new ChangeFeedError(operation, error);
  }
}

/** An `AccessDeniedException` of a Streams call as the error naming the operation and the stream's table; `undefined` for any other error. */
export function streamAccessDenied(operation: string, streamArn: string, error: unknown): AccessDeniedError | undefined {
  if (!(error instanceof Error) || error.name !== 'AccessDeniedException') return undefined;
  return new AccessDeniedError(operation, [tableOfStream(streamArn) ?? streamArn], { cause: error });
}

/** The table a stream ARN names (`arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`). */
function tableOfStream(streamArn: string): string | undefined {
  return /:table\/([^/]+)\/stream\//.exec(streamArn)?.[1];
}
