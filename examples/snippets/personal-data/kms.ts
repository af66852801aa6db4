/**
 * Subject keys wrapped by AWS KMS. Type-checked with the examples; the guide
 * docs/guides/personal-data.md includes its region.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SubjectKeys } from 'dynafold/erasure';
import { KmsKeyProvider } from 'dynafold/kms';

// #region kms
// npm install @aws-sdk/client-kms
const keys = new SubjectKeys({
  client: new DynamoDBClient({}),
  table: 'subject-keys',
  // Writers need kms:GenerateDataKey on the key; every reader needs
  // kms:Decrypt.
  provider: new KmsKeyProvider({
    client: new KMSClient({}),
    keyId: 'alias/dynafold-subjects',
  }),
});
// #endregion kms

export { keys };
