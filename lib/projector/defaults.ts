import type { Backoff } from '../util/backoff';

/** Defaults of {@link Projection}, in one place. */
export const ProjectionDefaults = {
  /** Rows processed at once by one call. */
  concurrency: 10,
  /**
   * Tries of a row's conditional write before it fails with `ConcurrentModificationError`: 12 tries,
   * waiting a jittered 15 ms growing ×1.5 to at most 300 ms between them — about 1.2 s in all.
   */
  retry: { attempts: 12, backoff: { initialMs: 15, maxMs: 300, factor: 1.5 } satisfies Backoff },
} as const;
