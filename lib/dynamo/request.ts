import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynafoldError, DynamoRequestError } from '../errors';
import { isAbortReason } from './abort';
import { tableFailure } from './failures';
import { sendGetItem } from './plain-requests';

/** The table a request addresses, or every table a transaction or batch does (the main one first). */
export type RequestTables = string | ReadonlyArray<string>;

/**
 * Runs one DynamoDB request on `tables`; anything the SDK throws leaves as a dynafold error with the SDK
 * error as cause (see {@link asRequestError}).
 */
export async function request<T>(operation: string, tables: RequestTables, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw asRequestError(operation, tables, error);
  }
}

/**
 * The error to throw for a failed request: a dynafold error or a caller's abort reason as it is; a missing
 * or refused table as the error naming it; any other SDK error as a {@link DynamoRequestError}.
 */
export function asRequestError(operation: string, tables: RequestTables, error: unknown): unknown {
  if (error instanceof DynafoldError || isAbortReason(error)) return error;
  return tableFailure(operation, tables, error) ?? new DynamoRequestError(operation, error);
}

/** The SDK error's name, for the few failures we act on (conditional checks, cancellations). */
export function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/** A single write's condition did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return errorName(error) === 'ConditionalCheckFailedException';
}

/** The reason code of each item of a cancelled transaction, in request order (`'None'` where it had none); `undefined` for any other error. */
export function cancellationCodes(error: unknown): string[] | undefined {
  if (errorName(error) !== 'TransactionCanceledException') return undefined;
  return ((error as { CancellationReasons?: ReadonlyArray<{ Code?: string | undefined }> | undefined }).CancellationReasons ?? []).map(
    (reason) => reason.Code ?? 'None',
  );
}

/** One item by its key, strongly consistent unless `consistent` is false. */
export async function getItem(
  documents: DynamoDBDocumentClient,
  table: string,
  key: Record<string, string>,
  consistent = true,
): Promise<Record<string, unknown> | undefined> {
  const result = await request('GetItem', table, () => sendGetItem(documents, { TableName: table, Key: key, ConsistentRead: consistent }));
  return result.Item;
}
