import type { DataKey, KeyLoader, KnownKeys } from '../personal';

/** What sealing and opening need of the subjects' keys: `SubjectKeys` is it. */
export interface KeyStore extends KeyLoader, KnownKeys {
  /** The keys to seal new personal data of `subjects` with, made for those that have none; a forgotten one is a `SubjectForgottenError`. */
  forWriting(subjects: ReadonlySet<string>, signal?: AbortSignal): Promise<Map<string, DataKey>>;
}
