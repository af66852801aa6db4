// Serves the orders API: npx tsx --env-file=.env.local src/serve.ts
import {
  DescribeTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { ordersApi } from './api.js';

async function main(): Promise<void> {
  const client = new DynamoDBClient({});
  const { Table } = await client.send(
    new DescribeTableCommand({ TableName: 'events' }),
  );
  const app = await ordersApi(client, Table?.LatestStreamArn ?? '');
  await app.listen({ port: 3000 });
  console.log('listening on http://127.0.0.1:3000');
  // Ctrl-C or a stop: closing the app stops the feed and releases its
  // lease.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void app.close());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
