import { DynafoldError, type ErrorOptions } from './dynafold-error';

/** A projection row lost every retry of its conditional write to concurrent writers. */
export class ConcurrentModificationError extends DynafoldError {
  constructor(
    readonly projection: string,
    readonly key: Readonly<Record<string, unknown>>,
    readonly attempts: number,
    options?: ErrorOptions,
  ) {
    super(
      'projector.concurrentModification',
      `Row ${JSON.stringify(key)} of projection ${projection} was modified concurrently ${attempts} times in a row: ` +
        'its records are reported as failed and will be redelivered; raise `retry.attempts` if many lanes write the same rows.',
      options,
    );
  }
}

/** A record that has to be reported as failed carries no identifier the source could use. */
export class StreamRecordIdentifierMissingError extends DynafoldError {
  constructor(
    readonly position: number,
    readonly source: string,
    options?: ErrorOptions,
  ) {
    super(
      'projector.identifierMissing',
      `Record at position ${position} failed but has no identifier for source "${source}" ` +
        '(dynamodb.SequenceNumber for lambda, eventID for pipe): fail the invocation so the whole batch is redelivered.',
      options,
    );
  }
}

/** A row of a `Projection` was addressed by more than one stream instance, in one call or across calls. */
export class MultipleSourcesError extends DynafoldError {
  constructor(
    readonly projection: string,
    readonly key: Readonly<Record<string, unknown>>,
    readonly instances: ReadonlyArray<string>,
    options?: ErrorOptions,
  ) {
    super(
      'projector.multipleSources',
      `Projection ${projection}: row ${JSON.stringify(key)} is addressed by several stream instances (${instances.join(', ')}); ` +
        'a row of a Projection is fed by one. Key rows by the stream id, or use a MultiSourceProjection.',
      options,
    );
  }
}

/** A gap could not be filled: the store lacks versions below one that was delivered. */
export class MissingEventsError extends DynafoldError {
  constructor(
    readonly streamName: string,
    readonly streamId: string,
    readonly fromVersion: number,
    readonly toVersion: number,
    options?: ErrorOptions,
  ) {
    super(
      'projector.missingEvents',
      `Stream ${streamName} "${streamId}" lacks versions between ${fromVersion} and ${toVersion}, although version ${toVersion} was delivered: ` +
        'the delivered records do not come from this events table.',
      options,
    );
  }
}

/** A row would pass DynamoDB's 400 KB item limit. */
export class RowTooLargeError extends DynafoldError {
  constructor(
    readonly projection: string,
    readonly key: Readonly<Record<string, unknown>>,
    readonly bytes: number,
    readonly instances: number | undefined,
    options?: ErrorOptions,
  ) {
    super(
      'projector.rowTooLarge',
      `Projection ${projection}: row ${JSON.stringify(key)} would be about ${Math.ceil(bytes / 1024)} KB` +
        (instances === undefined ? '' : ` with checkpoints of ${instances} source instances`) +
        ", over DynamoDB's 400 KB item limit. " +
        (instances === undefined
          ? 'Keep less in the row, or split it into several rows.'
          : 'Split the row (e.g. by period) so each row is fed by fewer stream instances.'),
      options,
    );
  }
}

/** An outbox message would pass DynamoDB's 400 KB item limit, even compressed. */
export class MessageTooLargeError extends DynafoldError {
  constructor(
    readonly projection: string,
    readonly event: { readonly streamName: string; readonly streamId: string; readonly version: number },
    readonly bytes: number,
    options?: ErrorOptions,
  ) {
    super(
      'projector.messageTooLarge',
      `Projection ${projection}: the outbox message of ${event.streamName} "${event.streamId}" v${event.version} is about ${Math.ceil(bytes / 1024)} KB even compressed, ` +
        "over DynamoDB's 400 KB item limit: publish a reference to the data (e.g. the event's id) instead of the data itself.",
      options,
    );
  }
}

/** A backfill stopped: a stream instance's rows failed with an error that is not transient. */
export class BackfillFailedError extends DynafoldError {
  constructor(
    readonly projection: string,
    /** The instance whose rows failed (`<stream>#<id>`). */
    readonly instance: string,
    cause: unknown,
  ) {
    super(
      'projector.backfillFailed',
      `Backfill of ${projection} stopped at stream instance ${instance}: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        'Its progress is saved: fix the cause and call backfill() again to resume (or give the projection a poison policy that parks such rows).',
      { cause },
    );
  }
}

/**
 * A read-your-writes wait ran out of time: the projection's row did not reflect the stream version in
 * time. The write itself went through; the projector lags, is stopped, or the event addresses no row.
 */
export class ReadYourWritesTimeoutError extends DynafoldError {
  constructor(
    readonly projection: string,
    readonly key: Readonly<Record<string, unknown>>,
    /** The source instance waited for (`<stream>#<id>`). */
    readonly instance: string | undefined,
    /** The version the row had to reflect. */
    readonly version: number,
    /** The version the row reflected at the last read; `undefined` when it did not exist. */
    readonly seenVersion: number | undefined,
    readonly waitedMs: number,
    options?: ErrorOptions,
  ) {
    super(
      'projector.waitTimeout',
      `Row ${JSON.stringify(key)} of projection ${projection} reflected ${seenVersion === undefined ? 'no version' : `version ${seenVersion}`} ` +
        `of ${instance ?? 'its stream'} after ${waitedMs} ms, not version ${version}: the write is stored, but the projector has not applied it yet. ` +
        "Check that the projector runs, raise `timeoutMs`, or pass `onTimeout: 'stale'` to answer with the row as it is.",
      options,
    );
  }
}
