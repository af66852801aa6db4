import { CreateTableCommand, PutItemCommand, UpdateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DynamoCheckpointStore, type ChangeFeedBatch } from 'dynafold/feed';
import { localConfig, uniqueName } from '../support/dynamo';

/**
 * Feed options for tests on DynamoDB Local: polls every 20 ms, and a disabled stream ends the feed at
 * once (DynamoDB Local lists its one shard at once, so there is no late child to wait for).
 */
export const localFeed = { disabledSettleMs: 0, pollIntervalMs: 20 } as const;

/** A Streams client on the test DynamoDB Local. */
export function streamsClient(): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({ ...localConfig(), maxAttempts: 1 });
}

/** Creates a table with a NEW_IMAGE stream keyed by `pk` (S) + `n` (N); returns its name and stream ARN. */
export async function createStreamedTable(client: DynamoDBClient, prefix = 'feed'): Promise<{ table: string; streamArn: string }> {
  const table = uniqueName(prefix);
  const created = await client.send(
    new CreateTableCommand({
      TableName: table,
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'n', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'n', AttributeType: 'N' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    }),
  );
  const streamArn = created.TableDescription?.LatestStreamArn;
  if (streamArn === undefined) throw new Error('no stream');
  return { table, streamArn };
}

/** Creates a checkpoint table and a store on it. */
export async function createCheckpointStore(client: DynamoDBClient): Promise<{ table: string; store: DynamoCheckpointStore }> {
  const table = uniqueName('checkpoints');
  await client.send(new CreateTableCommand(DynamoCheckpointStore.tableDefinition(table)));
  return { table, store: new DynamoCheckpointStore({ client, table }) };
}

/** Writes items `pk`/`n` for n in [from, to). */
export async function writeItems(client: DynamoDBClient, table: string, pk: string, from: number, to: number): Promise<void> {
  for (let n = from; n < to; n++) {
    await client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk }, n: { N: String(n) } } }));
  }
}

/** Disables the table's stream, which closes its shard: a feed drains it and ends. */
export async function disableStream(client: DynamoDBClient, table: string): Promise<void> {
  await client.send(new UpdateTableCommand({ TableName: table, StreamSpecification: { StreamEnabled: false } }));
}

/** `pk:n` of every record of a batch. */
export function keysOf(batch: ChangeFeedBatch): string[] {
  return batch.records.map((record) => `${record.dynamodb?.NewImage?.['pk']?.S}:${record.dynamodb?.NewImage?.['n']?.N}`);
}

/** Polls `condition` until it holds, failing after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An SDK error shaped like the service's, for fault-injecting middleware. */
export function serviceError(name: string, message = name): Error {
  return Object.assign(new Error(message), { name, $fault: 'server', $metadata: {} });
}
