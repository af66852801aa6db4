import { backoffDelay, type Backoff } from '../util/backoff';
import { sleep } from '../util/sleep';
import { log, type ChangeFeedLogger } from './logger';

/** How the feed reacts to a failed Streams or checkpoint-store call. */
export type FailureKind = 'retryable' | 'expiredIterator' | 'trimmed' | 'notFound' | 'fatal';

const RETRYABLE_NAMES = new Set([
  'LimitExceededException',
  'ThrottlingException',
  'Throttling',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED', 'EHOSTUNREACH']);

/**
 * Sorts an SDK error into what the feed does with it: throttling, internal server errors and network
 * errors are retried; an expired iterator is acquired again; trimmed data and a missing shard are lost
 * records; anything else ends the feed.
 *
 * @example
 * ```ts
 * classifyFailure(Object.assign(new Error('slow down'), { name: 'ThrottlingException' })) // 'retryable'
 * ```
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
  if (RETRYABLE_NAMES.has(error.name)) return 'retryable';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'retryable';
  const status = (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return 'retryable';
  return 'fatal';
}

/**
 * Whether an error, or the error it wraps as `cause`, is worth retrying.
 *
 * @example
 * ```ts
 * isRetryable(new CheckpointStoreError('write failed', { cause: throttled })) // true
 * ```
 */
export function isRetryable(error: unknown): boolean {
  if (classifyFailure(error) === 'retryable') return true;
  return error instanceof Error && error.cause !== undefined && classifyFailure(error.cause) === 'retryable';
}

/** Settings of {@link retrying}. */
export interface RetryOptions {
  readonly backoff: Backoff;
  readonly signal: AbortSignal;
  readonly logger: ChangeFeedLogger | undefined;
  /** Named in log lines. */
  readonly operation: string;
  /** Which errors are retried. @defaultValue {@link isRetryable} */
  readonly retryable?: (error: unknown) => boolean;
}

/**
 * Calls `fn` until it succeeds or fails with an error that is not retryable, waiting a jittered,
 * growing backoff between attempts. There is no attempt limit: throttling passes, and a feed that
 * gave up would only have to be restarted. Aborting the signal ends the wait.
 *
 * @example
 * ```ts
 * const page = await retrying(() => client.send(command, { abortSignal: signal }), { backoff, signal, logger, operation: 'GetRecords' })
 * ```
 */
export async function retrying<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const retryable = options.retryable ?? isRetryable;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (options.signal.aborted || !retryable(error)) throw error;
      const delay = backoffDelay(attempt, options.backoff);
      log(options.logger, 'warn', { operation: options.operation, attempt: attempt + 1, delayMs: Math.round(delay), err: error }, 'change feed call failed, retrying');
      await sleep(delay, options.signal);
    }
  }
}

/**
 * Resolves like `promise`, or rejects with the signal's reason as soon as it aborts.
 *
 * @example
 * ```ts
 * const outcome = await abortable(batch.settled, signal)
 * ```
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
