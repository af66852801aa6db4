import type { Backoff } from '../util';

/** Defaults of {@link Projection}, in one place. */
export const ProjectionDefaults = {
  /** Rows processed at once by one call. */
  concurrency: 10,
  /**
   * Tries of a row's conditional write before it fails with `ConcurrentModificationError`: 12 tries,
   * waiting a jittered 15 ms growing ×1.5 to at most 300 ms between them — about 1.2 s in all.
   */
  retry: { attempts: 12, backoff: { initialMs: 15, maxMs: 300, factor: 1.5 } satisfies Backoff },
  /**
   * A row another writer is bringing forward in several writes (an outbox's transactions) is watched
   * rather than raced until it has not moved for 1 s, or three times the longest its writer took between
   * two writes if that is longer: then the writer is taken to have stopped, and the row is written over.
   */
  watchStallMs: 1000,
  /**
   * Calls of one process on the same row take turns (see `RowTurns`); a call waits at most 5 s for the one
   * before it, then races it as calls of different processes do.
   */
  turnWaitMs: 5000,
  /** The attribute DynamoDB TTL expires tombstones on, when `tombstoneTtl` is set. */
  tombstoneTtlAttribute: 'ttl',
  /**
   * A call reads its rows in BatchGetItems, asking again for the keys DynamoDB leaves unprocessed: 10
   * requests in all, waiting a jittered 10 ms growing ×2 to 500 ms between them (about 2.5 s at most);
   * then each row reads itself (an append with inline projections fails with `DynamoRequestError`).
   */
  unprocessedKeys: { attempts: 10, backoff: { initialMs: 10, maxMs: 500 } satisfies Backoff },
  /**
   * Read-your-writes (`waitFor`): wait at most 5 s, then throw; read the row again after a jittered 10 ms
   * growing ×2 to 100 ms (a projector on the change feed polls every 100 ms or so).
   */
  readYourWrites: { timeoutMs: 5000, onTimeout: 'throw', backoff: { initialMs: 10, maxMs: 100 } satisfies Backoff },
  /** Defaults of `backfill`. */
  backfill: {
    /** Scan segments per events table. */
    segments: 4,
    /** Stream instances applied at once. */
    concurrency: 16,
    progressIntervalMs: 1000,
    run: 'default',
    /** A stream instance whose rows failed transiently is tried 8 times, waiting 100 ms growing ×2 to 5 s. */
    retry: { attempts: 8, backoff: { initialMs: 100, maxMs: 5000 } satisfies Backoff },
  },
} as const;
