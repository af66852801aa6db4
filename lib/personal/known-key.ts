import { SubjectKeyMissingError, SubjectKeyNotLoadedError } from '../errors';
import type { DataKey } from './cipher';

/** What this process knows of a subject's key. */
export type KnownKey =
  | { readonly kind: 'key'; readonly key: DataKey }
  /** The subject was forgotten: its data reads redacted, and no key is made for it again. */
  | { readonly kind: 'forgotten'; readonly forgottenAt: string }
  /** The key table held nothing for the subject when it was last read (strongly consistent). */
  | { readonly kind: 'missing' };

/** A subject's key, or that it was forgotten: what the key table can hold for a subject. */
export type HeldKey = Exclude<KnownKey, { readonly kind: 'missing' }>;

/** The keys a process loaded, as opening sealed values reads them (see `SubjectKeys.load`). */
export interface KnownKeys {
  /** The key table, for messages. */
  readonly table: string;
  /** What this process holds of a subject's key, however old. */
  known(subject: string): KnownKey | undefined;
}

/** What this process loaded of a subject's key: its key or that it was forgotten; anything else is an error. */
export function knownKey(keys: KnownKeys, subject: string, where: string): HeldKey {
  const known = keys.known(subject);
  if (known === undefined) throw new SubjectKeyNotLoadedError(subject, where);
  if (known.kind === 'missing') throw new SubjectKeyMissingError(subject, keys.table, where);
  return known;
}
