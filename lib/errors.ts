/**
 * Every error dynafold raises is a {@link DynafoldError} with a stable `code`, searchable in logs.
 * Subclasses carry the payload a caller needs to react (versions, ids, owners) and keep the
 * underlying SDK error as `cause`.
 *
 * @example
 * ```ts
 * try { await Orders.append(id, events, { expectedVersion: 3 }) }
 * catch (e) { if (e instanceof ConcurrencyError) console.log(e.actualVersion) }
 * ```
 */
export class DynafoldError extends Error {
  /** Stable machine-readable code, e.g. `'store.concurrency'`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }
}

/** An append's `expectedVersion` did not match the stream's head. Reload, decide again, retry. */
export class ConcurrencyError extends DynafoldError {
  constructor(
    readonly streamName: string,
    readonly streamId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number,
    options?: { cause?: unknown },
  ) {
    super(
      'store.concurrency',
      `Stream ${streamName} "${streamId}" is at version ${actualVersion}, not the expected ${expectedVersion}: ` +
        'load the stream again, decide on the new state and retry the append.',
      options,
    );
  }
}

/** One problem found by validation: where it is and what is wrong. */
export interface ValidationIssue {
  readonly path: ReadonlyArray<string | number>;
  readonly message: string;
}

/** Input was rejected before anything was written. The message names what to fix. */
export class ValidationError extends DynafoldError {
  constructor(
    message: string,
    readonly issues: ReadonlyArray<ValidationIssue> = [],
    options?: { cause?: unknown },
  ) {
    super('store.validation', message, options);
  }
}

/** An append would exceed a DynamoDB transaction limit; nothing was sent. */
export class TransactionLimitError extends DynafoldError {
  constructor(
    message: string,
    readonly limit: 'items' | 'itemSize' | 'transactionSize',
  ) {
    super('store.transactionLimit', message);
  }
}

/** A stored item that claims to be an event could not be decoded into one. */
export class DecodeError extends DynafoldError {
  constructor(
    message: string,
    readonly streamName: string | undefined,
    readonly issues: ReadonlyArray<ValidationIssue> = [],
    options?: { cause?: unknown },
  ) {
    super('store.decode', message, options);
  }
}

/** Options that can't be honoured, found at construction. */
export class ConfigurationError extends DynafoldError {
  constructor(message: string) {
    super('configuration', message);
  }
}

/** A DynamoDB request failed for a reason dynafold does not handle itself; `cause` is the SDK error. */
export class DynamoRequestError extends DynafoldError {
  constructor(
    readonly operation: string,
    cause: unknown,
  ) {
    super(
      'dynamo.request',
      `DynamoDB ${operation} failed: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`,
      { cause },
    );
  }
}

/** A projection row lost every retry of its conditional write to concurrent writers. */
export class ConcurrentModificationError extends DynafoldError {
  constructor(
    readonly projection: string,
    readonly key: Readonly<Record<string, unknown>>,
    readonly attempts: number,
  ) {
    super(
      'projector.concurrentModification',
      `Row ${JSON.stringify(key)} of projection ${projection} was modified concurrently ${attempts} times in a row: ` +
        'its records are reported as failed and will be redelivered; raise `retry.attempts` if many lanes write the same rows.',
    );
  }
}

/** A record that has to be reported as failed carries no identifier the source could use. */
export class StreamRecordIdentifierMissingError extends DynafoldError {
  constructor(
    readonly position: number,
    readonly source: string,
  ) {
    super(
      'projector.identifierMissing',
      `Record at position ${position} failed but has no identifier for source "${source}" ` +
        '(dynamodb.SequenceNumber for lambda, eventID for pipe): fail the invocation so the whole batch is redelivered.',
    );
  }
}

/** Records of the change feed were trimmed before they were read: they are lost. */
export class ChangeFeedTrimmedError extends DynafoldError {
  constructor(
    readonly streamArn: string,
    readonly shardId: string,
    readonly sequenceNumber: string | undefined,
    detail: string,
  ) {
    super(
      'feed.trimmed',
      `Records of shard ${shardId} of ${streamArn} were lost (${detail}). ` +
        "Rebuild what the feed maintains, then clear the consumer's checkpoints to start over.",
    );
  }
}

/** Another process holds the feed's lease. */
export class LeaseHeldError extends DynafoldError {
  constructor(
    readonly owner: string,
    readonly expiresAt: number,
  ) {
    super(
      'feed.leaseHeld',
      `The change feed's lease is held by ${owner} until ${new Date(expiresAt).toISOString()}: ` +
        "stop the other consumer, or use lease: { onHeld: 'wait' } to take over when it is released or expires.",
    );
  }
}

/** This process lost the feed's lease; it must not acknowledge anything more. */
export class LeaseLostError extends DynafoldError {
  constructor(
    readonly owner: string | undefined,
    detail: string,
  ) {
    super('feed.leaseLost', `The change feed's lease was lost (${detail}); nothing more is checkpointed by this consumer.`);
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
    super(
      'feed.request',
      `DynamoDB Streams ${operation} failed: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`,
      { cause },
    );
  }
}
