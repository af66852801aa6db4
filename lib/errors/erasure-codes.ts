import type { ErrorTable } from './catalogue';

/** The errors of personal data and its erasure (`personalData` of a stream, `SubjectKeys`): code, HTTP status and class. */
export const ErasureCodes = {
  // Personal data for a subject that was forgotten: no key is ever made for it again, so the request can never succeed as sent.
  'erasure.subjectForgotten': { status: 410, error: 'SubjectForgottenError' },
  // An event holds data sealed for a subject the key table has no key for, and the subject was never forgotten: data loss, not erasure.
  'erasure.keyMissing': { status: 500, error: 'SubjectKeyMissingError' },
  // A synchronous decode met a subject whose key nobody loaded: the caller's code must load a batch's keys first.
  'erasure.keyNotLoaded': { status: 500, error: 'SubjectKeyNotLoadedError' },
  // Stored ciphertext that fails AES-GCM's authentication: changed or corrupted, never decrypted to garbage.
  'erasure.tampered': { status: 500, error: 'PersonalDataTamperedError' },
  // The key provider (KMS, say) failed: transient when what it answered is (throttling, a 5xx, the network).
  'erasure.keyProvider': { status: 502, error: 'KeyProviderError', transient: 'cause' },
} as const satisfies ErrorTable;
