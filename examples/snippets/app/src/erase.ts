// Both halves of an erasure on the DynamoDB Local `npx dynafold local`
// runs: npx tsx --env-file=.env.local src/erase.ts <customer id>
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  eraseCustomer,
  rebuildErased,
  type RebuildJob,
} from './erasure.js';

async function main(): Promise<void> {
  const [customerId = 'c-43'] = process.argv.slice(2);
  const client = new DynamoDBClient({});
  try {
    const jobs: RebuildJob[] = [];
    // Here the queue is an array ...
    await eraseCustomer(client, customerId, async (job) => {
      jobs.push(job);
    });
    console.log('forgotten; rebuild due at', jobs[0]?.notBefore);
    // ... and the job runs at once: no other process holds the key.
    for (const job of jobs)
      console.log('rows rebuilt:', await rebuildErased(client, job));
  } finally {
    client.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
