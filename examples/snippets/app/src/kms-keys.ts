// Subject keys wrapped by AWS KMS, for production: the key provider
// subjectKeys (src/customers.ts) takes there.
import { KMSClient } from '@aws-sdk/client-kms';
import { KmsKeyProvider } from 'dynafold/kms';

// Writers need kms:GenerateDataKey on the key; every reader needs
// kms:Decrypt.
export const kmsKeyProvider = () =>
  new KmsKeyProvider({
    client: new KMSClient({}),
    keyId: 'alias/dynafold-subjects',
  });
