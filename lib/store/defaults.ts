import { warnDeprecated, type Backoff } from '../util';

/** A command's tries after a `ConcurrencyError`: 10 in all, waiting 5 ms growing ×2 to 200 ms between them. */
const commandRetry = { attempts: 10, backoff: { initialMs: 5, maxMs: 200 } satisfies Backoff } as const;

/** Defaults of {@link EventStream}, in one place. */
export const EventStreamDefaults = {
  /** @defaultValue gzip above 4 KiB of JSON */
  compression: { algorithm: 'gzip', thresholdBytes: 4096 },
  /**
   * How an append at the head (no `expectedVersion`), or one DynamoDB cancels for a concurrent transaction,
   * tries again: up to 100 tries within 20 s, waiting a fully jittered 5 ms growing ×2 to at most 1 s.
   * 50 writers appending to one stream at once all land with it.
   */
  appendRetry: { attempts: 100, maxElapsedMs: 20_000, backoff: { initialMs: 5, maxMs: 1000, jitter: 'full' } satisfies Backoff },
  /** How a command that lost to a concurrent append (`ConcurrencyError`) tries again: 10 tries, 5 ms growing ×2 to 200 ms. */
  commandRetry,
  /** @deprecated use `commandRetry.backoff`; goes in the next minor version. */
  get commandBackoff(): Backoff {
    warnDeprecated(undefined, 'EventStreamDefaults.commandBackoff', 'EventStreamDefaults.commandRetry.backoff');
    return commandRetry.backoff;
  },
  /** @deprecated use `commandRetry.attempts`; goes in the next minor version. */
  get commandAttempts(): number {
    warnDeprecated(undefined, 'EventStreamDefaults.commandAttempts', 'EventStreamDefaults.commandRetry.attempts');
    return commandRetry.attempts;
  },
  /**
   * Whether `execute` loads strongly consistent. Eventually consistent (the default) halves the load's read
   * units; a stale load costs a conflict and a retry from the commit that won, never a wrong append (the
   * append is conditioned on the version after it). It pays off unless one load in ten is stale: rare
   * outside streams written several times a second.
   */
  commandConsistentLoad: false,
  /** Whether each event of an append is an item of its own, for a rolling upgrade beside writers of 0.2 (see `itemPerEvent`). */
  itemPerEvent: false,
  /** Whether an append stores the trace context of its span on its commit, when an OpenTelemetry SDK is registered (see `traceContext`). */
  traceContext: true,
  /**
   * For how many stream instances an `EventStream` remembers the last version it saw end a commit, so an
   * append at it needs no proof read (see `rememberedVersions`): 10,000, about 100 bytes each for ids of a
   * few dozen characters.
   */
  rememberedVersions: 10_000,
  /** Commits (items) per Query page when reading a stream. */
  readPageSize: 1000,
  /**
   * Commits (appends) a load from a snapshot reads at most in the same Query as the snapshot (fewer with a
   * smaller `snapshot.every`), read from the head down to the snapshot's version, which the Query can't
   * know beforehand. A stream instance loaded lately reads as many as its last load found past the snapshot,
   * plus one per version appended since that the `EventStream` saw, plus one; one it has not loaded (or past
   * `rememberedVersions` instances) reads 4. A commit holds an append's events, so a larger read-ahead would
   * read many events for nothing after bulk appends; commits past these are read in one more Query, only
   * those the snapshot does not cover.
   */
  snapshotReadAhead: 4,
  /** The attribute DynamoDB TTL expires idempotency sentinels on, when `idempotencyTtl` is set. */
  idempotencyTtlAttribute: 'ttl',
  /** Segments of the parallel Scan that lists a stream's instances. */
  instanceSegments: 4,
} as const;
