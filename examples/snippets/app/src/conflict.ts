// What a lost race looks like: an append at a version the stream has
// moved past. npx tsx --env-file=.env.local src/conflict.ts <order id>
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynafoldError } from 'dynafold';
import { orderStream } from './orders.js';

async function main(): Promise<void> {
  const [orderId = 'o-1'] = process.argv.slice(2);
  const client = new DynamoDBClient({});
  try {
    await orderStream(client, 'events').append(
      { orderId },
      [{ type: 'ItemAdded', data: { sku: 'cup', price: 4 } }],
      { expectedVersion: 1 },
    );
  } catch (error) {
    // Narrowed to ConcurrencyError, its payload typed.
    if (!DynafoldError.is(error, 'store.concurrency')) throw error;
    const { code, expectedVersion, actualVersion, status } = error;
    console.log({ code, expectedVersion, actualVersion, status });
  } finally {
    client.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
