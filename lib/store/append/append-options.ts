import { ConfigurationError, ValidationError } from '../../errors';
import { isWellFormed, resolveRetry, type ResolvedRetry, type RetryOptions } from '../../util';
import type { InlineProjection } from '../inline';
import type { WaitForProjections } from '../read-your-writes';
import { validateInline } from './inline-append';

/** An idempotency key is part of a sort key (`i#<key>`), which DynamoDB limits to 1,024 bytes. */
const MAX_IDEMPOTENCY_KEY_BYTES = 1000;

/** Options of {@link EventStream.append}. */
export interface AppendOptions {
  /** The version the stream must be at; omitted → append at the head, retrying on conflict. */
  readonly expectedVersion?: number | undefined;
  /**
   * Makes a retried append return the first append's result instead of appending again. The key is bound
   * to its request (see `request`): used again for another request, the append fails with
   * `IdempotencyMismatchError` and writes nothing.
   */
  readonly idempotencyKey?: string | undefined;
  /**
   * What `idempotencyKey` stands for, compared (as a SHA-256 of its canonical JSON) when the key comes again.
   * @defaultValue the events' types and data, and `expectedVersion` (metadata is left out)
   */
  readonly request?: unknown;
  /** Stored on every event of the append (an event's own metadata wins per key). */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /**
   * How an append that loses to concurrent writers tries again: at the head (no `expectedVersion`) when
   * another append took the next version, and whenever DynamoDB cancels the transaction for a concurrent
   * one. Out of tries or time, it fails with `AppendContentionError`. Invalid, the call fails with `ValidationError`.
   * @defaultValue 100 tries within 20 s, waiting a fully jittered 5 ms growing ×2 to 1 s ({@link EventStreamDefaults.appendRetry})
   */
  readonly retry?: RetryOptions | undefined;
  /** Cancels the append: every request is aborted and the call rejects with the signal's reason (nothing is written unless the transaction already went through). */
  readonly signal?: AbortSignal | undefined;
  /**
   * Projections whose rows to write in the append's own transaction when they can: each row read strongly
   * consistent is at the version before the append and everything fits DynamoDB's limits; otherwise the
   * projector applies them as usual. Never fails the append: the result says which were applied inline.
   */
  readonly inline?: ReadonlyArray<InlineProjection> | undefined;
  /**
   * Read-your-writes: resolve only once these projections' rows reflect the appended events, with the rows
   * in `projected` (by projection name). See `Projection.waitFor`.
   */
  readonly waitFor?: WaitForProjections | undefined;
}

/**
 * The retry budget of an append: whichever of the two runs out first ends it.
 * @deprecated the same as {@link RetryOptions}; goes in the next minor version.
 */
export type AppendRetry = RetryOptions;

const resolvedDefaults = new WeakMap<object, ResolvedRetry>();

/**
 * A call's retry options with `defaults` applied. A call has no construction to fail: an option it can't
 * honour fails the call with `ValidationError`, as its other options do.
 */
export function resolveCallRetry(retry: RetryOptions | undefined, defaults: Parameters<typeof resolveRetry>[1], whose: string): ResolvedRetry {
  // A call without its own retry (most) takes the defaults, resolved once.
  const known = retry === undefined ? resolvedDefaults.get(defaults) : undefined;
  if (known !== undefined) return known;
  try {
    const resolved = resolveRetry(retry, defaults, whose === '' ? undefined : `Options of ${whose}`);
    if (retry === undefined) resolvedDefaults.set(defaults, resolved);
    return resolved;
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    throw new ValidationError(error.message, [{ path: ['retry'], message: 'out of range' }]);
  }
}

/** Checks an append's options (not its events); throws `ValidationError` naming the first one that can't be honoured. */
export function validateAppendOptions(streamName: string, options: AppendOptions): void {
  const { expectedVersion, idempotencyKey } = options;
  validateInline(streamName, options.inline);
  if (expectedVersion !== undefined && (!Number.isSafeInteger(expectedVersion) || expectedVersion < 0)) {
    throw new ValidationError(`Expected \`expectedVersion\` to be an integer ≥ 0, got ${String(expectedVersion)}.`, [
      { path: ['expectedVersion'], message: 'not an integer ≥ 0' },
    ]);
  }
  if (
    idempotencyKey !== undefined &&
    (typeof idempotencyKey !== 'string' ||
      idempotencyKey.length === 0 ||
      Buffer.byteLength(idempotencyKey) > MAX_IDEMPOTENCY_KEY_BYTES ||
      !isWellFormed(idempotencyKey))
  ) {
    throw new ValidationError(`Expected \`idempotencyKey\` to be a well-formed string of 1 to ${MAX_IDEMPOTENCY_KEY_BYTES} bytes (UTF-8).`, [
      { path: ['idempotencyKey'], message: 'invalid' },
    ]);
  }
}
