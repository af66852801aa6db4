// A local run: DynamoDB Local in memory, the tables, an append, and the
// stream's real records through the handler.
import {
  CreateTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  eventsTableDefinition,
  readModelTableDefinition,
} from 'dynafold';
import {
  readStreamRecords,
  startDynamoLocal,
  toLambdaRecord,
} from 'dynafold/local';
import {
  orderStream,
  orderSummaries,
  ordersHandler,
} from './orders.js';

async function main(): Promise<void> {
  // In memory, on a free port (needs Java 17+).
  const local = await startDynamoLocal();
  const client = new DynamoDBClient(local.clientConfig);
  try {
    const tables = { events: 'events', views: 'views' };
    const created = await client.send(
      new CreateTableCommand(eventsTableDefinition(tables.events)),
    );
    await client.send(
      new CreateTableCommand(
        readModelTableDefinition(tables.views, [
          orderSummaries(client, tables.views),
        ]),
      ),
    );
    // The events table has a stream: its ARN is what a Lambda event
    // source mapping (or the change feed) reads.
    const streamArn = created.TableDescription?.LatestStreamArn ?? '';

    const orders = orderStream(client, tables.events);
    await orders.append(
      { orderId: 'o-1' },
      [
        { type: 'OrderPlaced', data: { customer: 'ada' } },
        { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
      ],
      { expectedVersion: 0 },
    );

    // The records Lambda would deliver, read back from the table's
    // stream and handed over in Lambda's shape.
    const records = await readStreamRecords(
      new DynamoDBStreamsClient(local.clientConfig),
      streamArn,
    );
    const handler = ordersHandler(client, tables);
    const answer = await handler({
      Records: records.map((record) =>
        toLambdaRecord(record, { streamArn }),
      ),
    });
    console.log('failed records:', answer.batchItemFailures.length);
    console.log(
      'row:',
      await orderSummaries(client, tables.views).get({
        orderId: 'o-1',
      }),
    );
  } finally {
    client.destroy();
    await local.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
