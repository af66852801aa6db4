import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from 'dynafold';
import { DYNAMODB_ENDPOINT, DYNAMODB_ENDPOINTS, localClientConfig, startTestDynamo, stopTestDynamo, uniqueTableName } from 'dynafold/testing';

const saved = { endpoint: process.env[DYNAMODB_ENDPOINT], endpoints: process.env[DYNAMODB_ENDPOINTS] };

afterEach(async () => {
  await stopTestDynamo();
  for (const [name, value] of [
    [DYNAMODB_ENDPOINT, saved.endpoint],
    [DYNAMODB_ENDPOINTS, saved.endpoints],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function tablesAt(endpoint: string): Promise<string[]> {
  const client = new DynamoDBClient({ ...localClientConfig({ [DYNAMODB_ENDPOINT]: endpoint }), maxAttempts: 1 });
  try {
    return (await client.send(new ListTablesCommand({}))).TableNames ?? [];
  } finally {
    client.destroy();
  }
}

test('startTestDynamo({ instances: 2 }) starts two separate databases, gives each worker its own, and stops both', async () => {
  delete process.env[DYNAMODB_ENDPOINT];
  delete process.env[DYNAMODB_ENDPOINTS];
  await startTestDynamo({ instances: 2 });
  const endpoints = (process.env[DYNAMODB_ENDPOINTS] ?? '').split(',');
  expect(endpoints).toHaveLength(2);
  const [first, second] = endpoints as [string, string];
  expect(first).not.toBe(second);
  expect(process.env[DYNAMODB_ENDPOINT]).toBe(first);
  expect(localClientConfig({ ...process.env, JEST_WORKER_ID: '2' }).endpoint).toBe(second);

  // A table made through worker 2's endpoint is not seen through worker 1's: no shared database, no shared lock.
  const table = uniqueTableName('apart');
  const client = new DynamoDBClient(localClientConfig({ ...process.env, JEST_WORKER_ID: '2' }));
  await client.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  client.destroy();
  expect(await tablesAt(second)).toContain(table);
  expect(await tablesAt(first)).not.toContain(table);

  await stopTestDynamo();
  expect(process.env[DYNAMODB_ENDPOINT]).toBeUndefined();
  expect(process.env[DYNAMODB_ENDPOINTS]).toBeUndefined();
  await expect(tablesAt(first)).rejects.toThrow();
  await expect(tablesAt(second)).rejects.toThrow();
});

test('startTestDynamo starts nothing when an endpoint is set, and refuses a count that is not a whole number of at least 1', async () => {
  process.env[DYNAMODB_ENDPOINT] = 'http://127.0.0.1:9';
  delete process.env[DYNAMODB_ENDPOINTS];
  await startTestDynamo({ instances: 2 });
  expect(process.env[DYNAMODB_ENDPOINT]).toBe('http://127.0.0.1:9');
  expect(process.env[DYNAMODB_ENDPOINTS]).toBeUndefined();
  await expect(startTestDynamo({ instances: 0 })).rejects.toBeInstanceOf(ConfigurationError);
  await expect(startTestDynamo({ instances: 1.5 })).rejects.toThrow(/instances must be a whole number/);
});
