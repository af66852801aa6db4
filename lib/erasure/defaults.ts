import type { Backoff } from '../util';

/** Defaults of {@link SubjectKeys}, in one place. */
export const SubjectKeysDefaults = {
  /**
   * How long a process keeps a subject's key (or that it was forgotten) before reading it again: a
   * Lambda batch reads each subject's key once, and a subject forgotten elsewhere reads redacted here
   * within this long. Rebuild a forgotten subject's rows once it has passed (see the erasure guide).
   */
  cacheLifetimeMs: 300_000,
  /** Subjects a process keeps keys of at most (a soft bound: one batch's subjects are all kept). */
  cacheMaxEntries: 10_000,
  /** Data keys unwrapped at once by the key provider (KMS requests in flight). */
  unwrapConcurrency: 16,
  /**
   * A BatchGetItem of keys asks again for the keys DynamoDB leaves unprocessed: 10 requests in all,
   * waiting a jittered 10 ms growing ×2 to 500 ms between them.
   */
  unprocessedKeys: { attempts: 10, backoff: { initialMs: 10, maxMs: 500 } satisfies Backoff },
} as const;
