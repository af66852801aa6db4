import { DynafoldError, type ErrorOptions } from './dynafold-error';
import { StoredEventError, type StoredEventRef } from './stored-event-error';

export type { StoredEventRef } from './stored-event-error';

/** An append's `expectedVersion` did not match the stream's head. Reload, decide again, retry. */
export class ConcurrencyError extends DynafoldError {
  constructor(
    readonly streamName: string,
    readonly streamId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number,
    options?: ErrorOptions,
  ) {
    super(
      'store.concurrency',
      `Stream ${streamName} "${streamId}" is at version ${actualVersion}, not the expected ${expectedVersion}: ` +
        'load the stream again, decide on the new state and retry the append.',
      options,
    );
  }
}

/**
 * An append kept losing to concurrent writers until its retry budget ran out: at the head (no
 * `expectedVersion`) other appends kept taking the next version, or DynamoDB kept cancelling the
 * transaction for concurrent ones. Nothing was written by this append.
 */
export class AppendContentionError extends DynafoldError {
  constructor(
    readonly streamName: string,
    readonly streamId: string,
    readonly attempts: number,
    readonly elapsedMs: number,
    options?: ErrorOptions,
  ) {
    super(
      'store.appendContention',
      `An append to stream ${streamName} "${streamId}" lost to concurrent writers ${attempts} times in ${(elapsedMs / 1000).toFixed(1)} s and gave up; nothing was written. ` +
        'Raise `retry.attempts` or `retry.maxElapsedMs` of the append, or spread the writes over more stream instances.',
      options,
    );
  }
}

/**
 * An idempotency key was used again for a different request: other events, data or `expectedVersion`
 * (or another `request`) than the append that first used it. Nothing was written. Use a new key for a new
 * request; `appended` names the versions the key's first append wrote.
 */
export class IdempotencyMismatchError extends DynafoldError {
  constructor(
    readonly streamName: string,
    readonly streamId: string,
    readonly idempotencyKey: string,
    readonly appended: { readonly fromVersion: number; readonly toVersion: number },
    options?: ErrorOptions,
  ) {
    super(
      'store.idempotencyMismatch',
      `Idempotency key "${idempotencyKey}" of stream ${streamName} "${streamId}" was first used for another request ` +
        `(versions ${appended.fromVersion} to ${appended.toVersion}); nothing was written. Send a new key with a new request, ` +
        'and the same events, data and expectedVersion with a repeated key.',
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
    options?: ErrorOptions,
  ) {
    super('store.validation', message, options);
  }
}

/**
 * An append would exceed a DynamoDB limit; nothing was sent. `limit` says which: `itemSize`, one event
 * too large for an item (400 KB) of its own; `transactionSize`, events too large together for one
 * transaction (4 MB). (`items`, 100 items in a transaction, was reached when each event was an item of its
 * own; an append is now one item, or several as full as items can be, so the 4 MB limit comes first.)
 */
export class TransactionLimitError extends DynafoldError {
  constructor(
    message: string,
    readonly limit: 'items' | 'itemSize' | 'transactionSize',
    options?: ErrorOptions,
  ) {
    super('store.transactionLimit', message, options);
  }
}

/** A stored item that claims to be an event could not be decoded into one. */
export class DecodeError extends DynafoldError {
  constructor(
    message: string,
    readonly streamName: string | undefined,
    readonly issues: ReadonlyArray<ValidationIssue> = [],
    options?: ErrorOptions,
  ) {
    super('store.decode', message, options);
  }
}

/**
 * An upcast (or the stream's `fromNewer` downcast) of a stored event threw, or returned data the next
 * version's schema refuses. The stored data itself matched its version's schema: the definition's
 * function is what to fix. Nothing is written by the call that met it.
 */
export class UpcastError extends StoredEventError {
  constructor(
    event: StoredEventRef,
    /** What went wrong, e.g. "the upcast from version 1 threw". */
    reason: string,
    readonly issues: ReadonlyArray<ValidationIssue> = [],
    options?: ErrorOptions,
  ) {
    super('store.upcast', event, `: ${reason}. Fix the stream's \`versions\` definition of the type.`, options);
  }
}

/**
 * An event was stored at a version of its type newer than this reader's definition knows: newer code
 * wrote it while older code still runs (a rolling deploy). Transient: it reads once the new definition
 * runs here too, so fail the call (a Lambda batch is retried) rather than drop the event; or give the
 * type a `fromNewer` downcast.
 */
export class EventVersionTooNewError extends StoredEventError {
  constructor(
    event: StoredEventRef,
    /** The newest version of the type this reader knows. */
    readonly knownVersion: number,
    options?: ErrorOptions,
  ) {
    super(
      'store.eventVersionTooNew',
      event,
      ` is newer than version ${knownVersion}, the newest this code knows: ` +
        'deploy the definition that writes it here too, or give the type a `fromNewer` downcast.',
      options,
    );
  }
}

/** Options that can't be honoured, found at construction. */
export class ConfigurationError extends DynafoldError {
  constructor(message: string, options?: ErrorOptions) {
    super('configuration', message, options);
  }
}
