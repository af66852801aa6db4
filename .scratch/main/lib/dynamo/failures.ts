import { AccessDeniedError, TableNotFoundError } from '../errors';

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
