import { DynafoldError } from '../errors';
import { log, type Logger } from '../util';

/** The request a failure is logged with. */
export interface FailedRequest {
  readonly method: string;
  readonly url: string;
  readonly status: number;
}

/**
 * Logs an error a service answered with a 5xx: its Problem Details say nothing of it, so this is where
 * the operation, the table and what DynamoDB answered end up. With no logger it goes to `console.error`
 * as one JSON line, which is what container and Lambda log collectors read.
 */
export function logRequestFailure(logger: Logger | undefined, error: unknown, request: FailedRequest): void {
  const details = { ...request, err: serializedError(error) };
  if (logger !== undefined) log(logger, 'error', { ...details, err: error }, 'request failed');
  else console.error(JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: 'request failed', ...details }));
}

/** What `JSON.stringify` of an error drops: for a dynafold error its JSON (code, payload, the cause's name and message), and the stack. */
function serializedError(error: unknown): unknown {
  if (error instanceof DynafoldError) return { ...error.toJSON(), stack: error.stack };
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return error;
}
