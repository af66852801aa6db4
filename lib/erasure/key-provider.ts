import { ConfigurationError, KeyProviderError } from '../errors';
import { requireText } from '../util';
import { DATA_KEY_BYTES, newDataKey, open, seal } from '../personal';

/** A new subject's data key, in the clear (used, never stored) and wrapped (stored in the key table). */
export interface NewDataKey {
  readonly key: Uint8Array;
  readonly wrapped: Uint8Array;
}

/**
 * Wraps subjects' data keys under a key-encryption key that never leaves it: `LocalKeyProvider` for tests
 * and DynamoDB Local, `KmsKeyProvider` (from `dynafold/kms`) for production. A data key is wrapped for its
 * subject alone: unwrapped for another subject, it fails.
 */
export interface KeyProvider {
  /** Names the key-encryption key; stored beside each key it wrapped, to tell them apart after a change of key. */
  readonly id: string;
  /** A new random data key for `subject`, and the same key wrapped. */
  newKey(subject: string): Promise<NewDataKey>;
  /** The data key of `subject` that `wrapped` holds; fails with `KeyProviderError` when it does not unwrap. */
  unwrap(subject: string, wrapped: Uint8Array): Promise<Uint8Array>;
}

/** Options of {@link LocalKeyProvider}. */
export interface LocalKeyProviderOptions {
  /** The key-encryption key: 32 secret bytes (`crypto.randomBytes(32)`), kept out of the code and the tables. */
  readonly key: Uint8Array;
  /** Names the key, stored beside every data key it wraps. @defaultValue 'local' */
  readonly id?: string | undefined;
}

/** What a local provider's wrap of a subject's key is bound to. */
const wrapContext = (subject: string) => `dynafold:subject-key:${subject}`;

/**
 * A key provider that wraps data keys with AES-256-GCM under a key of its own, in this process: for tests,
 * DynamoDB Local and development. Whoever holds its key can unwrap every data key of the table, so in
 * production use a provider whose key never leaves a key service (`KmsKeyProvider`).
 *
 * @example
 * ```ts
 * const provider = new LocalKeyProvider({ key: randomBytes(32) })
 * const keys = new SubjectKeys({ client, table: 'subject-keys', provider })
 * ```
 */
export class LocalKeyProvider implements KeyProvider {
  readonly id: string;
  private readonly key: Buffer;

  constructor(options: LocalKeyProviderOptions) {
    const key = options?.key;
    if (!(key instanceof Uint8Array) || key.byteLength !== DATA_KEY_BYTES) {
      throw new ConfigurationError(`LocalKeyProvider: expected \`key\` to be ${DATA_KEY_BYTES} bytes (crypto.randomBytes(${DATA_KEY_BYTES})).`);
    }
    this.key = Buffer.from(key);
    this.id = requireText('id', options.id ?? 'local', 'LocalKeyProvider');
  }

  newKey(subject: string): Promise<NewDataKey> {
    const { bytes } = newDataKey();
    return Promise.resolve({ key: bytes, wrapped: seal(this.key, bytes, wrapContext(subject)) });
  }

  unwrap(subject: string, wrapped: Uint8Array): Promise<Uint8Array> {
    const key = open(this.key, wrapped, wrapContext(subject));
    if (key === undefined) {
      return Promise.reject(new KeyProviderError('unwrap', subject, { cause: new Error(`the key does not unwrap with local key ${this.id}`) }));
    }
    return Promise.resolve(key);
  }
}
