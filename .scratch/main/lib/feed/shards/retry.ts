import { isTransient } from '../../errors';
import { backoffDelay, type Backoff, sleep, log, type Logger } from '../../util';

/** How the feed reacts to a failed Streams or checkpoint-store call. */
export type FailureKind = 'retryable' | 'expiredIterator' | 'trimmed' | 'notFound' | 'fatal';

/**
 * Sorts an SDK error into what the feed does with it: throttling, internal server errors and network
 * errors are retried; an expired iterator is acquired again; trimmed data and a missing shard are lost
 * records; anything else ends the feed.
 */
export function classifyFailure(error: unknown): FailureKind {
  if (!(error instanceof Error)) return 'fatal';
  switch (error.name) {
    case 'ExpiredIteratorException':
      return 'expiredIterator';
    case 'TrimmedDataAccessException':
      return 'trimmed';
    case 'ResourceNotFoundException':
      return 'notFound';
  }
  return isTransient(error) ? 'retryable' : 'fatal';
}

/**
 * Whether an error, or the error it wraps as `cause`, is worth retrying.
 */
export function isRetryable(error: unknown): boolean {
  if (classifyFailure(error) === 'retryable') return true;
  return error instanceof Error && error.cause !== undefined && classifyFailure(error.cause) === 'retryable';
}

/** Settings of {@link retrying}. */
export interface RetryOptions {
  readonly backoff: Backoff;
  readonly signal: AbortSignal;
  readonly logger: Logger | undefined;
  /** Named in log lines. */
  readonly operation: string;
  /** Which errors are retried. @defaultValue {@link isRetryable} */
  readonly retryable?: ((error: unknown) => boolean) | undefined;
  /** Attempts in all, the last failure thrown after them. @defaultValue no limit */
  readonly attempts?: number | undefined;
}

/**
 * Calls `fn` until it succeeds or fails with an error that is not retryable, waiting a jittered,
 * growing backoff between attempts. By default there is no attempt limit: throttling passes, and a feed
 * that gave up would only have to be restarted; a one-off read (a replay) sets `attempts`. Aborting the
 * signal ends the wait.
 */
export async function retrying<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const retryable = options.retryable ?? isRetryable;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (options.signal.aborted || !retryable(error) || (options.attempts !== undefined && attempt + 1 >= options.attempts)) throw error;
      const delay = backoffDelay(attempt, options.backoff);
      log(
        options.logger,
        'warn',
        { operation: options.operation, attempt: attempt + 1, delayMs: Math.round(delay), err: error },
        'change feed call failed, retrying',
      );
      await sleep(delay, options.signal);
    }
  }
}

/**
 * Resolves like `promise`, or rejects with the signal's reason as soon as it aborts.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
