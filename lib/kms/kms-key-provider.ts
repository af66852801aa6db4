import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { ConfigurationError, KeyProviderError } from '../errors';
import type { KeyProvider, NewDataKey } from '../erasure';
import { requireText } from '../util';

/** Options of {@link KmsKeyProvider}. */
export interface KmsKeyProviderOptions {
  /** The KMS client; never constructed or destroyed here. */
  readonly client: KMSClient;
  /** The symmetric KMS key that wraps every data key: its id, ARN or alias (`alias/dynafold-subjects`). */
  readonly keyId: string;
}

/** What every data key is bound to in KMS (its encryption context), besides its subject. */
const PURPOSE = 'dynafold:subject-key';

/**
 * A key provider whose key-encryption key never leaves AWS KMS: each subject's data key is made by KMS
 * (`GenerateDataKey`, AES-256) and unwrapped by it (`Decrypt`), bound to the subject by the encryption
 * context `{ purpose, subject }`, which CloudTrail logs with every use. Grant `kms:GenerateDataKey` to
 * writers and `kms:Decrypt` to every reader (projections, services, the relay). Unwrapped keys are cached
 * by `SubjectKeys`, so a Lambda batch calls Decrypt once per subject it has not seen.
 *
 * @example
 * ```ts
 * import { KMSClient } from '@aws-sdk/client-kms'
 * import { KmsKeyProvider } from 'dynafold/kms'
 * const provider = new KmsKeyProvider({ client: new KMSClient({}), keyId: 'alias/dynafold-subjects' })
 * const keys = new SubjectKeys({ client, table: 'subject-keys', provider })
 * ```
 */
export class KmsKeyProvider implements KeyProvider {
  readonly id: string;
  private readonly client: KMSClient;

  constructor(options: KmsKeyProviderOptions) {
    if (typeof options?.client?.send !== 'function') throw new ConfigurationError('KmsKeyProvider: expected `client` to be a KMSClient.');
    this.client = options.client;
    this.id = requireText('keyId', options.keyId, 'KmsKeyProvider');
  }

  async newKey(subject: string): Promise<NewDataKey> {
    const answer = await this.client.send(
      new GenerateDataKeyCommand({ KeyId: this.id, KeySpec: 'AES_256', EncryptionContext: { purpose: PURPOSE, subject } }),
    );
    if (answer.Plaintext === undefined || answer.CiphertextBlob === undefined) {
      throw new KeyProviderError('make', subject, { cause: new Error('KMS GenerateDataKey answered without a key') });
    }
    return { key: answer.Plaintext, wrapped: answer.CiphertextBlob };
  }

  async unwrap(subject: string, wrapped: Uint8Array): Promise<Uint8Array> {
    const answer = await this.client.send(
      new DecryptCommand({ KeyId: this.id, CiphertextBlob: wrapped, EncryptionContext: { purpose: PURPOSE, subject } }),
    );
    if (answer.Plaintext === undefined) throw new KeyProviderError('unwrap', subject, { cause: new Error('KMS Decrypt answered without a key') });
    return answer.Plaintext;
  }
}
