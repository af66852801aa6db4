import { randomBytes } from 'node:crypto';
import { DecodeError, PersonalDataTamperedError } from '../errors';
import { DATA_KEY_BYTES, SealFormat, open, seal, storedBytes, type DataKey } from './cipher';
import { knownKey, type KnownKeys } from './known-key';
import type { Trail } from './trail';

/** A value sealed for several subjects at once: its ciphertext, and each subject's share of its key, sealed with the subject's key. */
export interface SealedBlob {
  readonly body: Buffer;
  readonly shares: Record<string, Buffer>;
}

const shareContext = (context: string, subject: string) => `${context}\nshare\n${subject}`;

/** The context a blob's body was sealed for in each format it may be stored in (`undefined` for one it may not): a string for the first format only. */
export type BlobContext = string | ((format: number) => string | undefined);

/**
 * Seals `plaintext` (a snapshot's state, an outbox message) so that it opens only while every subject of
 * `trail` still has its key: the key it is sealed with is the XOR of one random share per subject, and each
 * share is sealed with its subject's key. Forgetting any one subject makes it unreadable for good. Body and
 * shares are bound to `context`, in `format`.
 */
export function sealBlob(trail: Trail, plaintext: Uint8Array, context: string, format: SealFormat = SealFormat.first): SealedBlob {
  const key = Buffer.alloc(DATA_KEY_BYTES);
  const shares: Record<string, Buffer> = {};
  for (const [subject, subjectKey] of trail) {
    const share = randomBytes(DATA_KEY_BYTES);
    for (let i = 0; i < DATA_KEY_BYTES; i++) key[i] = (key[i] as number) ^ (share[i] as number);
    shares[subject] = seal(subjectKey, share, shareContext(context, subject), format);
  }
  return { body: seal(key, plaintext, context, format), shares };
}

/** A sealed blob opened, or why it can't be: a subject of it was forgotten. */
export type OpenedBlob =
  { readonly kind: 'open'; readonly plaintext: Buffer; readonly trail: Trail } | { readonly kind: 'forgotten'; readonly subject: string };

/**
 * Opens a blob sealed by {@link sealBlob} for `context` with the keys `keys` loaded (see `SubjectKeys.load`):
 * `forgotten` once any of its subjects is. A key not loaded or missing, and a blob or share that fails
 * authentication, are errors.
 */
export function openBlob(keys: KnownKeys, body: unknown, shares: unknown, context: BlobContext, where: string): OpenedBlob {
  const contextIn = (format: number) => (typeof context === 'string' ? (format === SealFormat.first ? context : undefined) : context(format));
  if (typeof shares !== 'object' || shares === null || Array.isArray(shares))
    throw new DecodeError(`${where}: its key shares are not a map of subjects.`, undefined);
  const key = Buffer.alloc(DATA_KEY_BYTES);
  const trail = new Map<string, DataKey>();
  const entries = Object.entries(shares as Record<string, unknown>);
  for (const [subject] of entries) {
    if (knownKey(keys, subject, where).kind === 'forgotten') return { kind: 'forgotten', subject };
  }
  for (const [subject, sealed] of entries) {
    const known = knownKey(keys, subject, where);
    if (known.kind !== 'key') return { kind: 'forgotten', subject };
    const bytes = storedBytes(sealed);
    const shareIn = (format: number) => {
      const bound = contextIn(format);
      return bound === undefined ? undefined : shareContext(bound, subject);
    };
    const share = bytes === undefined ? undefined : open(known.key, bytes, shareIn);
    if (share === undefined || share.length !== DATA_KEY_BYTES) throw new PersonalDataTamperedError(`${where}, key share`, subject);
    for (let i = 0; i < DATA_KEY_BYTES; i++) key[i] = (key[i] as number) ^ (share[i] as number);
    trail.set(subject, known.key);
  }
  const sealedBody = storedBytes(body);
  const plaintext = sealedBody === undefined ? undefined : open(key, sealedBody, contextIn);
  if (plaintext === undefined) throw new PersonalDataTamperedError(where, [...trail.keys()].join(', '));
  return { kind: 'open', plaintext, trail };
}
