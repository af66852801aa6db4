import { randomBytes } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

/** A table name of the examples: the purpose, a timestamp and a random suffix, so runs never collide. */
export function uniqueTableName(purpose: string): string {
  return `dynafold-${purpose}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** Creates a table from its definition and waits until it is active (instant on DynamoDB Local). */
export async function createTable(
  client: DynamoDBClient,
  definition: CreateTableCommandInput,
): Promise<{ name: string; streamArn?: string }> {
  const created = await client.send(new CreateTableCommand(definition));
  const name = definition.TableName as string;
  await waitUntilTableExists(
    { client, maxWaitTime: 120, minDelay: 1 },
    { TableName: name },
  );
  const streamArn = created.TableDescription?.LatestStreamArn;
  return streamArn === undefined ? { name } : { name, streamArn };
}

/** Deletes tables, ignoring ones that are already gone. */
export async function deleteTables(
  client: DynamoDBClient,
  names: ReadonlyArray<string>,
): Promise<void> {
  await Promise.all(
    names.map((name) =>
      client
        .send(new DeleteTableCommand({ TableName: name }))
        .catch((error: unknown) => {
          if (!(
            error instanceof Error &&
            error.name === 'ResourceNotFoundException'
          ))
            throw error;
        }),
    ),
  );
}
