// A customer registered on the DynamoDB Local `npx dynafold local` runs:
// npx tsx src/register.ts <customer id> <name>
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoLocalDefaults } from 'dynafold/local';
import { customerStream, subjectKeys } from './customers.js';

async function main(): Promise<void> {
  const [customerId = 'c-42', name = 'Ada Lovelace'] =
    process.argv.slice(2);
  const client = new DynamoDBClient({
    endpoint: 'http://127.0.0.1:8000',
    region: DynamoLocalDefaults.region,
    credentials: DynamoLocalDefaults.credentials,
  });
  try {
    const customers = customerStream(
      client,
      'events',
      subjectKeys(client, 'subject-keys'),
    );
    // Written sealed; read, by every reader, in the clear.
    await customers.append({ customerId }, [
      {
        type: 'Registered',
        data: { name, email: 'ada@example.com', country: 'UK' },
      },
    ]);
    const [registered] = await customers.read({ customerId });
    console.log('read back:', registered?.data);
  } finally {
    client.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
