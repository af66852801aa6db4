import { DynafoldError, type ErrorOptions } from './dynafold-error';

/** Records of the change feed were trimmed before they were read: they are lost. */
export class ChangeFeedTrimmedError extends DynafoldError {
  constructor(
    readonly streamArn: string,
    readonly shardId: string,
    readonly sequenceNumber: string | undefined,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(
      'feed.trimmed',
      `Records of shard ${shardId} of ${streamArn} were lost (${detail}). ` +
        "Rebuild what the feed maintains, then clear the consumer's checkpoints to start over.",
      options,
    );
  }
}

/**
 * A Lambda OnFailure message's batch could not be read back whole: its range of the shard holds no record,
 * or fewer than the `batchSize` the message names (the records are not this stream's, or not yet there).
 * Nothing was processed: keep the message (let its queue retry it) and check that it names this stream.
 */
export class ReplayRangeError extends DynafoldError {
  constructor(
    readonly streamArn: string,
    readonly shardId: string,
    readonly startSequenceNumber: string,
    readonly endSequenceNumber: string,
    /** The records the message says its batch held; `undefined` when it does not say. */
    readonly batchSize: number | undefined,
    /** The records the range held. */
    readonly found: number,
    options?: ErrorOptions,
  ) {
    super(
      'feed.replayRange',
      `The failed batch (sequence numbers ${startSequenceNumber} to ${endSequenceNumber} of shard ${shardId} of ${streamArn}) ` +
        `held ${found} record${found === 1 ? '' : 's'}${batchSize === undefined ? '' : `, not the ${batchSize} its message names`}: nothing was processed. ` +
        'Keep the message (its queue retries it) and check that it is for this stream.',
      options,
    );
  }
}

/** Another process holds the feed's lease. */
export class LeaseHeldError extends DynafoldError {
  constructor(
    readonly owner: string,
    readonly expiresAt: number,
    options?: ErrorOptions,
  ) {
    super(
      'feed.leaseHeld',
      `The change feed's lease is held by ${owner} until ${new Date(expiresAt).toISOString()}: ` +
        "stop the other consumer, or use lease: { onHeld: 'wait' } to take over when it is released or expires.",
      options,
    );
  }
}

/** This process lost the feed's lease; it must not acknowledge anything more. */
export class LeaseLostError extends DynafoldError {
  constructor(
    readonly owner: string | undefined,
    detail: string,
    options?: ErrorOptions,
  ) {
    super('feed.leaseLost', `The change feed's lease was lost (${detail}); nothing more is checkpointed by this consumer.`, options);
  }
}

/** The checkpoint store could not be read or written. Retrying the acknowledgement writes again. */
export class CheckpointStoreError extends DynafoldError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('feed.checkpointStore', message, options);
  }
}

/** A Streams API request failed with an error the feed does not retry. */
export class ChangeFeedError extends DynafoldError {
  constructor(
    readonly operation: string,
    cause: unknown,
  ) {
    super('feed.request', `DynamoDB Streams ${operation} failed: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`, {
      cause,
    });
  }
}

/** A record handed to the feed's acknowledgement lacks what the feed needs (its SequenceNumber). */
export class StreamRecordError extends DynafoldError {
  constructor(message: string, options?: ErrorOptions) {
    super('feed.record', message, options);
  }
}
