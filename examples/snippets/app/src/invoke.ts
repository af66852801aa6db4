// Invokes the traced Lambda handler as Lambda would, with the records of
// the events table's stream:
// npx tsx --env-file=.env.local src/invoke.ts
import {
  DescribeTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { readStreamRecords, toLambdaRecord } from 'dynafold/local';
import { handler } from './traced-handler.js';

async function main(): Promise<void> {
  // Endpoint, region and credentials from the environment, as in Lambda.
  const client = new DynamoDBClient({});
  const streams = new DynamoDBStreamsClient({});
  try {
    const { Table } = await client.send(
      new DescribeTableCommand({ TableName: 'events' }),
    );
    const streamArn = Table?.LatestStreamArn ?? '';
    const records = await readStreamRecords(streams, streamArn);
    const answer = await handler(
      {
        Records: records.map((record) =>
          toLambdaRecord(record, { streamArn }),
        ),
      },
      { getRemainingTimeInMillis: () => 30_000 },
    );
    console.log('failed records:', answer.batchItemFailures.length);
  } finally {
    client.destroy();
    streams.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
