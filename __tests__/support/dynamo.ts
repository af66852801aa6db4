import { CreateTableCommand, DynamoDBClient, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { localClientConfig, uniqueTableName } from 'dynafold/testing';

/** Settings that reach the DynamoDB Local started by globalSetup (the test kit's). */
export const localConfig = localClientConfig;

/** A real client on DynamoDB Local. Pass `middleware` hooks in tests to count or fault requests. */
export function testClient(): DynamoDBClient {
  return new DynamoDBClient({ ...localConfig(), maxAttempts: 3 });
}

/** A table name no other test file uses. */
export const uniqueName = uniqueTableName;

/** Creates a table from a definition under a fresh unique name and returns the name and stream ARN. */
export async function createTestTable(
  client: DynamoDBClient,
  definition: (name: string) => CreateTableCommandInput,
  prefix = 'test',
): Promise<{ name: string; streamArn: string | undefined }> {
  const name = uniqueName(prefix);
  const created = await client.send(new CreateTableCommand(definition(name)));
  return { name, streamArn: created.TableDescription?.LatestStreamArn };
}
