import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { CheckpointStoreError, DynafoldError, StreamRecordError } from '../errors';
import type { PartialBatchResponse } from '../lambda';
import { resolveCompletion, type Completion } from './completion';

/**
 * A change-feed record: the SDK's GetRecords record as it is, the same shape a Lambda event source
 * mapping delivers (`eventName`, `dynamodb.SequenceNumber`, `dynamodb.NewImage`, ...).
 *
 * @example
 * ```ts
 * const inserts = batch.records.filter((record: ChangeFeedRecord) => record.eventName === 'INSERT')
 * ```
 */
export type ChangeFeedRecord = _Record;

/**
 * One shard's records, in sequence order, to be acknowledged with `commit()` or `complete(response)`.
 * The shard is not read again until its batch is acknowledged, so each shard has at most one batch
 * in flight; a batch never acknowledged stalls its shard.
 *
 * @example
 * ```ts
 * for await (const batch of feed) {
 *   for (const record of batch.records) console.log(record.eventName, record.dynamodb?.Keys)
 *   await batch.commit()
 * }
 * ```
 */
export interface ChangeFeedBatch {
  readonly shardId: string;
  readonly records: ReadonlyArray<ChangeFeedRecord>;
  readonly firstSequenceNumber: string;
  readonly lastSequenceNumber: string;
  /** Checkpoints the shard at `lastSequenceNumber`. */
  commit(): Promise<void>;
  /**
   * Applies a partial batch response (identifiers are SequenceNumbers), with Lambda's contract: no
   * failures → checkpoint at the last record; otherwise checkpoint before the earliest failed record and
   * read again from it after a backoff; an identifier naming no record of the batch fails the whole batch.
   * The first acknowledgement whose checkpoint is written counts; later ones do nothing. Rejects with
   * `CheckpointStoreError` if the write failed (call again to retry), or `LeaseLostError` once the lease
   * is lost (nothing is written).
   */
  complete(response: PartialBatchResponse): Promise<void>;
}

/** What the shard reader learns once its batch is acknowledged. */
export interface Settlement {
  readonly completion: Completion;
}

/** What a batch needs from its feed to acknowledge: a checkpoint write and the lease guard. */
export interface AcknowledgementTarget {
  /** Writes the shard's checkpoint. */
  checkpoint(sequenceNumber: string): Promise<void>;
  /** Throws `LeaseLostError` when the feed's lease is lost. */
  assertLease(): void;
}

/**
 * A batch handed out by a shard reader, and the promise its reader waits on until acknowledged.
 * Concurrent acknowledgements are serialised: the first one whose write succeeds settles the batch.
 */
export class PendingBatch implements ChangeFeedBatch {
  readonly firstSequenceNumber: string;
  readonly lastSequenceNumber: string;
  /** Resolves once an acknowledgement was written. */
  readonly settled: Promise<Settlement>;
  private settle!: (settlement: Settlement) => void;
  private done = false;
  private writing: Promise<unknown> | undefined;
  private readonly sequenceNumbers: ReadonlyArray<string>;

  constructor(
    readonly shardId: string,
    readonly records: ReadonlyArray<ChangeFeedRecord>,
    private readonly target: AcknowledgementTarget,
  ) {
    this.sequenceNumbers = records.map((record, index) => {
      const sequenceNumber = record.dynamodb?.SequenceNumber;
      if (sequenceNumber === undefined)
        throw new StreamRecordError(
          `Record ${index} of shard ${shardId} has no SequenceNumber: hand the feed's records to acknowledge as they came.`,
        );
      return sequenceNumber;
    });
    const first = this.sequenceNumbers[0];
    const last = this.sequenceNumbers[this.sequenceNumbers.length - 1];
    if (first === undefined || last === undefined) throw new RangeError('A batch has at least one record');
    this.firstSequenceNumber = first;
    this.lastSequenceNumber = last;
    this.settled = new Promise((resolve) => (this.settle = resolve));
    // Bound here so that `const { commit } = batch` works too.
    this.commit = this.commit.bind(this);
    this.complete = this.complete.bind(this);
  }

  commit(): Promise<void> {
    return this.complete({ batchItemFailures: [] });
  }

  async complete(response: PartialBatchResponse): Promise<void> {
    const completion = resolveCompletion(this.sequenceNumbers, response);
    while (this.writing !== undefined) {
      await this.writing.catch(() => undefined);
    }
    if (this.done) return;
    this.target.assertLease();
    const checkpoint = completion.kind === 'batch' ? undefined : completion.checkpoint;
    if (checkpoint !== undefined) {
      const write = this.target.checkpoint(checkpoint);
      this.writing = write;
      try {
        await write;
      } catch (error) {
        throw error instanceof DynafoldError
          ? error
          : new CheckpointStoreError(`Writing the checkpoint of shard ${this.shardId} failed: acknowledge again to retry`, { cause: error });
      } finally {
        this.writing = undefined;
      }
    }
    this.done = true;
    this.settle({ completion });
  }
}
