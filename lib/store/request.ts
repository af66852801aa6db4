import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynafoldError, DynamoRequestError } from '../errors';

/** Runs one DynamoDB request; anything the SDK throws leaves as a {@link DynamoRequestError} with the SDK error as cause. */
export async function request<T>(operation: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof DynafoldError) throw error;
    throw new DynamoRequestError(operation, error);
  }
}

/** The SDK error's name, for the few failures we act on (conditional checks, cancellations). */
export function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/** One item by its key, strongly consistent unless `consistent` is false. */
export async function getItem(
  documents: DynamoDBDocumentClient,
  table: string,
  key: Record<string, string>,
  consistent = true,
): Promise<Record<string, unknown> | undefined> {
  const result = await request('GetItem', () => documents.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: consistent })));
  return result.Item;
}
