// #region local
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoLocal } from 'dynafold/local';

export async function withDynamoLocal(
  work: (client: DynamoDBClient) => Promise<void>,
): Promise<void> {
  // Resolves once it answers (about 2 s)
  const local = await startDynamoLocal();
  // Endpoint, region, fixed local credentials
  const client = new DynamoDBClient(local.clientConfig);
  try {
    await work(client);
  } finally {
    client.destroy();
    await local.stop();
  }
}
// #endregion local
