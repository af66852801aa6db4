// An order placed on the DynamoDB Local `npx dynafold local` runs:
// npx tsx src/place-order.ts <order id> <customer>
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoLocalDefaults } from 'dynafold/local';
import { orderStream } from './orders.js';

async function main(): Promise<void> {
  const [orderId = 'o-2', customer = 'grace'] = process.argv.slice(2);
  const client = new DynamoDBClient({
    endpoint: 'http://127.0.0.1:8000',
    region: DynamoLocalDefaults.region,
    credentials: DynamoLocalDefaults.credentials,
  });
  try {
    const { version } = await orderStream(client, 'events').append(
      { orderId },
      [
        { type: 'OrderPlaced', data: { customer } },
        { type: 'ItemAdded', data: { sku: 'pen', price: 3 } },
      ],
    );
    console.log(`order ${orderId} placed, at version ${version}`);
  } finally {
    client.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
