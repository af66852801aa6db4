/**
 * A script that reads a table's change feed with a `for await` loop.
 *
 *   npx tsx examples/poller-script.ts
 *
 * It starts an embedded DynamoDB Local (unless DYNAMODB_ENDPOINT points at one), creates a table with
 * a stream and a checkpoint table, writes a few items, reads them back through the feed, commits each
 * batch and stops once it has seen them all.
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  ChangeFeedConsumer,
  DynamoCheckpointStore,
} from 'dynafold/feed';
import {
  DynamoLocalDefaults,
  startDynamoLocal,
  type DynamoLocal,
} from 'dynafold/local';

async function main(): Promise<void> {
  // The SDK's notice about Node versions it will drop has no place in the output.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] =
    'true';
  const endpoint = process.env['DYNAMODB_ENDPOINT'];
  const local: DynamoLocal | undefined =
    endpoint === undefined ? await startDynamoLocal() : undefined;
  const config = local?.clientConfig ?? {
    endpoint,
    region: DynamoLocalDefaults.region,
    credentials: { ...DynamoLocalDefaults.credentials },
  };
  const client = new DynamoDBClient(config);
  const streamsClient = new DynamoDBStreamsClient(config);

  try {
    const suffix = Date.now().toString(36);
    const created = await client.send(
      new CreateTableCommand({
        TableName: `notes-${suffix}`,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [
          { AttributeName: 'id', AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: {
          StreamEnabled: true,
          StreamViewType: 'NEW_IMAGE',
        },
      }),
    );
    const streamArn = created.TableDescription?.LatestStreamArn;
    if (streamArn === undefined)
      throw new Error('The table has no stream');
    const checkpointTable = `checkpoints-${suffix}`;
    await client.send(
      new CreateTableCommand(
        DynamoCheckpointStore.tableDefinition(checkpointTable),
      ),
    );

    const notes = ['buy milk', 'write the report', 'call the plumber'];
    for (const [index, text] of notes.entries()) {
      await client.send(
        new PutItemCommand({
          TableName: `notes-${suffix}`,
          Item: { id: { S: `note-${index}` }, text: { S: text } },
        }),
      );
    }

    const feed = new ChangeFeedConsumer({
      streamsClient,
      streamArn,
      consumer: 'poller-script',
      checkpoints: new DynamoCheckpointStore({
        client,
        table: checkpointTable,
      }),
      pollIntervalMs: 100,
    });
    let seen = 0;
    for await (const batch of feed) {
      for (const record of batch.records) {
        console.log(
          `${batch.shardId} ${record.eventName} ${record.dynamodb?.NewImage?.['text']?.S ?? ''}`,
        );
        seen++;
      }
      await batch.commit(); // checkpoint at batch.lastSequenceNumber
      if (seen >= notes.length) break; // leaving the loop stops the feed and releases its lease
    }
    console.log(`read ${seen} records`);
  } finally {
    client.destroy();
    streamsClient.destroy();
    await local?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
