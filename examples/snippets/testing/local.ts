// #region local
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoLocal } from 'dynafold/local';

export async function withDynamoLocal(work: (client: DynamoDBClient) => Promise<void>): Promise<void> {
  const local = await startDynamoLocal(); // resolves once it answers (about 2 s)
  const client = new DynamoDBClient(local.clientConfig); // endpoint, region, fixed local credentials
  try {
    await work(client);
  } finally {
    client.destroy();
    await local.stop();
  }
}
// #endregion local
