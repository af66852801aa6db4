import { AccessDeniedError, TableNotFoundError } from '../errors';

/*
 * Which AWS failures pass by themselves: throttling, internal server errors, timeouts and network errors.
 * The feed retries them without limit; the projector never counts them towards parking a row.
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

/** Whether an SDK error is transient: retrying the same request later can succeed. */
export function isTransientError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (RETRYABLE_NAMES.has(error.name)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const status = (error as { $metadata?: { httpStatusCode?: unknown } | undefined }).$metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500;
}

/**
 * The error naming the table for a request DynamoDB answered with "no such table" or "access denied";
 * `undefined` for any other failure. Both say the deployment is wrong, so they name what to fix.
 */
export function tableFailure(
  operation: string,
  tables: string | ReadonlyArray<string>,
  error: unknown,
): TableNotFoundError | AccessDeniedError | undefined {
  const named = typeof tables === 'string' ? [tables] : tables;
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'ResourceNotFoundException') return new TableNotFoundError(operation, named, { cause: error });
  if (error.name === 'AccessDeniedException') return new AccessDeniedError(operation, named, { cause: error });
  return undefined;
}
