/** Small helpers every module uses: backoff, abortable waits, the option validators and the shared option shapes (retry, TTL). */
export { backoffDelay } from './backoff';
export type { Backoff } from './backoff';
export { mayRetry, resolveRetry } from './retry';
export type { ResolvedRetry, RetryOptions } from './retry';
export { resolveTtl } from './ttl';
export type { ResolvedTtl, Ttl, TtlRules } from './ttl';
export { renamedOption, warnDeprecated } from './deprecation';
export { sleep } from './sleep';
export { merge } from './merge';
export { RequestRate } from './request-rate';
export { requireBackoff, requireFunction, requireInteger, requireNumber, requireTableName, requireText } from './validate';
export { log } from './logger';
export { isWellFormed, ILL_FORMED } from './well-formed';
export type { Logger, LogLevel } from './logger';
export { consoleLogger, resolveLogger } from './console-logger';
export { Semaphore } from './semaphore';
export { RecordedErrorLimits, boundedMessage, recordedError } from './recorded-error';
export type { RecordedError } from './recorded-error';
