import { ErrorCatalogue, type ErrorRow } from './catalogue';
import { DynafoldError } from './dynafold-error';

/*
 * Which AWS failures pass by themselves: throttling, internal server errors, timeouts and network errors.
 */
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
 * Whether trying again later can succeed with no change of code, data or deployment: a `DynafoldError`
 * whose code is transient (`store.appendContention`, `store.eventVersionTooNew`,
 * `projector.concurrentModification`, `projector.waitTimeout`; `dynamo.request` and the feed's request
 * errors when what DynamoDB answered is), or an AWS SDK error of throttling, a server error (5xx), a
 * timeout or the network. The change feed retries such failures without limit, and a projection never
 * counts them towards parking a row.
 *
 * @example
 * ```ts
 * try { await Orders.append(id, events) }
 * catch (error) { if (isTransient(error)) return retryLater(); throw error }
 * ```
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof DynafoldError) {
    const transient = (ErrorCatalogue as Readonly<Record<string, ErrorRow>>)[error.code]?.transient;
    return transient === true || (transient === 'cause' && isTransientAnswer(error.cause));
  }
  return isTransientAnswer(error);
}

/** Whether an SDK error is transient: retrying the same request later can succeed. */
function isTransientAnswer(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (RETRYABLE_NAMES.has(error.name)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const status = (error as { $metadata?: { httpStatusCode?: unknown } | undefined }).$metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500;
}
