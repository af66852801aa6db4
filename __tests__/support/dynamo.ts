import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { DynamoLocalDefaults } from '../../lib/local';

/** Settings that reach the DynamoDB Local started by globalSetup. */
export function localConfig() {
  const endpoint = process.env['DYNAMODB_ENDPOINT'];
  if (endpoint === undefined) throw new Error('DYNAMODB_ENDPOINT is not set: run the tests through jest (globalSetup starts DynamoDB Local)');
  return { endpoint, region: DynamoLocalDefaults.region, credentials: { ...DynamoLocalDefaults.credentials } };
}

/** A real client on DynamoDB Local. Pass `middleware` hooks in tests to count or fault requests. */
export function testClient(): DynamoDBClient {
  return new DynamoDBClient({ ...localConfig(), maxAttempts: 3 });
}

/** A table name no other test file uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

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
