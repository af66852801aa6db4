import { quickRetries } from '../../chaos/faults';
import { CreateTableCommand, DynamoDBClient, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { localClientConfig, uniqueTableName } from 'dynafold/testing';

/** Settings that reach the DynamoDB Local started by globalSetup (the test kit's). */
export const localConfig = localClientConfig;

/** A real client on DynamoDB Local. Pass `middleware` hooks in tests to count or fault requests. */
export function testClient(): DynamoDBClient {
  // DynamoDB Local serialises transactions behind one lock; when the other test worker keeps it busy it
  // answers InternalServerError ("too long waiting for a lock", nothing written) where DynamoDB would not.
  // Retried every 200 ms, up to 30 attempts, with no retry quota: the SDK's standard strategy shares a
  // quota across the client, which 50 concurrent writers drain in one busy spell. Faults the tests inject
  // are added before the retry loop, so this changes nothing for them.
  return new DynamoDBClient({ ...localConfig(), retryStrategy: quickRetries(30, 200) });
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
