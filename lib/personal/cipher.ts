import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/**
 * A subject's data key: 32 random bytes for AES-256-GCM, kept as a `KeyObject` so that it is never
 * serialised by accident (a log line, `JSON.stringify`) the way a Buffer would be.
 */
export type DataKey = KeyObject;

/** The bytes of a data key. */
export const DATA_KEY_BYTES = 32;

/**
 * How a sealed value is laid out: a format byte, a 96-bit IV drawn fresh for every value (GCM's nonce,
 * random: 2^32 values under one key stay far within its bounds), the ciphertext and GCM's 128-bit tag.
 * Every format has this layout; the format says what the value's context (its additional data) binds,
 * which its caller decides (see `contexts.ts`).
 */
const SealLayout = { ivBytes: 12, tagBytes: 16 } as const;

/**
 * The formats of sealed values. `first`: what every value was sealed in before event fields and snapshots
 * were bound to their versions (outbox messages and wrapped keys still are: their places are unique).
 * `versioned`: an event field bound to its event's version too, a snapshot to the versions saved beside it.
 */
export const SealFormat = { first: 1, versioned: 2 } as const;
export type SealFormat = (typeof SealFormat)[keyof typeof SealFormat];

/** Random bytes drawn 256 IVs at a time: a call of `randomBytes` costs more than sealing a short value. */
const ivPool = { bytes: Buffer.alloc(0), used: 0, size: SealLayout.ivBytes * 256 };

/** 12 random bytes never handed out before (each pool is drawn anew, never reused). */
function freshIv(): Buffer {
  if (ivPool.used + SealLayout.ivBytes > ivPool.bytes.length) {
    ivPool.bytes = randomBytes(ivPool.size);
    ivPool.used = 0;
  }
  const iv = ivPool.bytes.subarray(ivPool.used, ivPool.used + SealLayout.ivBytes);
  ivPool.used += SealLayout.ivBytes;
  return iv;
}

/** What sealing adds to a value's bytes. */
export const SEAL_OVERHEAD_BYTES = 1 + SealLayout.ivBytes + SealLayout.tagBytes;

/** A data key from its bytes; anything but 32 bytes is refused. */
export function dataKeyOf(bytes: Uint8Array): DataKey {
  if (bytes.byteLength !== DATA_KEY_BYTES) throw new RangeError(`A data key has ${DATA_KEY_BYTES} bytes, not ${bytes.byteLength}.`);
  return createSecretKey(bytes);
}

/** A fresh random data key. */
export function newDataKey(): { readonly key: DataKey; readonly bytes: Buffer } {
  const bytes = randomBytes(DATA_KEY_BYTES);
  return { key: createSecretKey(bytes), bytes };
}

/**
 * Seals `plaintext` with AES-256-GCM under `key`, bound to `context` (GCM's additional data): a value
 * sealed for one place does not open in another, so no ciphertext can be moved between the places its
 * context tells apart unnoticed. `format` is stored in its first byte, for {@link open} to pick the
 * context it was bound to.
 */
export function seal(key: DataKey | Uint8Array, plaintext: Uint8Array, context: string, format: SealFormat = SealFormat.first): Buffer {
  const iv = freshIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(format), iv, body, cipher.getAuthTag()]);
}

/**
 * The plaintext of a value sealed by {@link seal}, or `undefined` when it does not authenticate (changed,
 * truncated, sealed under another key or for another place): never bytes that were not sealed there.
 * `context` is the context of a value sealed in the first format (any other is refused), or the context a
 * value of each format it accepts was bound to (`undefined` for a format it refuses).
 */
export function open(key: DataKey | Uint8Array, sealed: Uint8Array, context: string | ((format: number) => string | undefined)): Buffer | undefined {
  const { ivBytes, tagBytes } = SealLayout;
  if (sealed.byteLength < SEAL_OVERHEAD_BYTES) return undefined;
  const format = sealed[0] as number;
  const bound = typeof context === 'string' ? (format === SealFormat.first ? context : undefined) : context(format);
  if (bound === undefined) return undefined;
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + ivBytes));
  decipher.setAAD(Buffer.from(bound, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(1 + ivBytes, bytes.length - tagBytes)), decipher.final()]);
  } catch {
    return undefined;
  }
}

/**
 * A keyed hash of `text` under a subject's key (HMAC-SHA-256): equal texts hash equal while the key
 * lives, and once it is deleted nobody can test a guess against the hash.
 */
export function keyedHash(key: DataKey, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('base64url');
}

/** Stored bytes as bytes: DynamoDB's SDK reads give bytes, Lambda's JSON base64 strings. */
export function storedBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  return typeof value === 'string' ? Buffer.from(value, 'base64') : undefined;
}
