import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
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

/** Options of {@link LocalKeyProvider}: its key, given (`key`) or kept in a file (`keyFile`). */
export type LocalKeyProviderOptions = {
  /** Names the key, stored beside every data key it wraps. @defaultValue 'local' */
  readonly id?: string | undefined;
} & (
  | {
      /**
       * The key-encryption key: 32 secret bytes, kept out of the code and the tables. Every process that
       * reads the key table must have the same: `randomBytes(32)` in each opens only the keys it made itself.
       */
      readonly key: Uint8Array;
      readonly keyFile?: undefined;
    }
  | {
      /**
       * A file holding the key-encryption key (32 bytes), made with a random key on first use when it does
       * not exist (readable by its owner only): every process started in the same folder shares it. For
       * development and DynamoDB Local; keep it out of version control.
       */
      readonly keyFile: string;
      readonly key?: undefined;
    }
);

/** The key a file holds, made (32 random bytes, by one process only) when it does not exist yet. */
function keyInFile(path: string): Uint8Array {
  try {
    // `wx`: only when no file is there, so two processes starting at once end up with one key.
    writeFileSync(path, randomBytes(DATA_KEY_BYTES), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST')
      throw new ConfigurationError(`LocalKeyProvider: could not make the key file ${path}: ${(error as Error).message}`, { cause: error });
  }
  const key = readFileSync(path);
  if (key.byteLength !== DATA_KEY_BYTES)
    throw new ConfigurationError(
      `LocalKeyProvider: the key file ${path} holds ${key.byteLength} bytes, not ${DATA_KEY_BYTES}: delete it to make a new one.`,
    );
  return key;
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
 * const provider = new LocalKeyProvider({ keyFile: '.subject-key' }) // made on first use, shared by every process here
 * const keys = new SubjectKeys({ client, table: 'subject-keys', provider })
 * ```
 */
export class LocalKeyProvider implements KeyProvider {
  readonly id: string;
  private readonly key: Buffer;

  constructor(options: LocalKeyProviderOptions) {
    if (options?.key !== undefined && options.keyFile !== undefined)
      throw new ConfigurationError('LocalKeyProvider: give `key` or `keyFile`, not both.');
    if (options?.keyFile !== undefined && (typeof options.keyFile !== 'string' || options.keyFile === ''))
      throw new ConfigurationError('LocalKeyProvider: expected `keyFile` to be a path.');
    const key = options?.keyFile === undefined ? options?.key : keyInFile(options.keyFile);
    if (!(key instanceof Uint8Array) || key.byteLength !== DATA_KEY_BYTES) {
      throw new ConfigurationError(
        `LocalKeyProvider: expected \`key\` to be ${DATA_KEY_BYTES} bytes, the same in every process (or a \`keyFile\` that holds them).`,
      );
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
      return Promise.reject(
        new KeyProviderError('unwrap', subject, {
          cause: new Error(`the data key was wrapped with another key than this LocalKeyProvider's (${this.id})`),
          advice:
            'every process that reads the key table must use the same key: one made with randomBytes(32) in each process opens only the keys it ' +
            'made itself. Give every process the same `key` (from a secret), or the same `keyFile`.',
        }),
      );
    }
    return Promise.resolve(key);
  }
}
