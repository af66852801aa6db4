/**
 * One shard's figures, as reported to `onMetrics` and by `feed.status()`.
 *
 * Lag is measured by the consumer itself, because `ApproximateCreationDateTime` is only minute-precise
 * on DynamoDB Local: `lagRecords` counts records read but not yet checkpointed, and `lagMs` is how long
 * the oldest of them has been waiting since the feed read it (0 when nothing waits). `caughtUp` says the
 * last read returned fewer records than `batchSize` and everything read is checkpointed: the shard has
 * nothing newer than what was processed.
 *
 * @example
 * ```ts
 * const feed = new ChangeFeedConsumer({ ...options, onMetrics: (m) => gauge.set({ shard: m.shardId }, m.lagRecords) })
 * ```
 */
export interface ShardMetrics {
  readonly shardId: string;
  readonly state: 'waiting' | 'reading' | 'finished';
  /** The last sequence number checkpointed, if any. */
  readonly checkpoint: string | undefined;
  readonly recordsRead: number;
  /** Batches acknowledged with failures (and re-read). */
  readonly batchesFailed: number;
  readonly lagRecords: number;
  readonly lagMs: number;
  readonly caughtUp: boolean;
}

/**
 * A snapshot of the whole feed, for a health endpoint.
 *
 * @example
 * ```ts
 * app.get('/health', async () => feed.status())
 * ```
 */
export interface ChangeFeedStatus {
  readonly streamArn: string;
  readonly consumer: string;
  readonly state: 'idle' | 'starting' | 'running' | 'stopping' | 'ended' | 'failed';
  /** The lease as this feed holds it; undefined without a lease or before it is taken. */
  readonly lease: { readonly owner: string; readonly expiresAt: number; readonly lost: boolean } | undefined;
  /** The error that ended the feed, if it failed. */
  readonly error: Error | undefined;
  readonly shards: ReadonlyArray<ShardMetrics>;
}

/**
 * Mutable per-shard counters behind {@link ShardMetrics}.
 */
export class ShardMeter {
  state: ShardMetrics['state'] = 'waiting';
  checkpoint: string | undefined;
  recordsRead = 0;
  batchesFailed = 0;
  private pending = 0;
  private pendingSince: number | undefined;
  private lastReadFull = false;
  /** GetRecords answers with no records: the shard's tip reached that many times. */
  emptyReads = 0;

  constructor(
    readonly shardId: string,
    private readonly report: ((metrics: ShardMetrics) => void) | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** A GetRecords answer: `count` records read, `full` when it returned a whole batch. */
  read(count: number, full: boolean): void {
    this.lastReadFull = full;
    if (count === 0) {
      this.emptyReads++;
      return;
    }
    this.recordsRead += count;
    this.pending += count;
    this.pendingSince ??= this.now();
    this.emit();
  }

  /** An acknowledgement: every read record is either checkpointed or will be read again. */
  settled(checkpoint: string | undefined, failed: boolean): void {
    if (checkpoint !== undefined) this.checkpoint = checkpoint;
    if (failed) this.batchesFailed++;
    this.pending = 0;
    this.pendingSince = undefined;
    this.emit();
  }

  transition(state: ShardMetrics['state']): void {
    this.state = state;
    this.emit();
  }

  /** Nothing read is waiting for its acknowledgement. */
  get settledAll(): boolean {
    return this.pending === 0;
  }

  snapshot(): ShardMetrics {
    return {
      shardId: this.shardId,
      state: this.state,
      checkpoint: this.checkpoint,
      recordsRead: this.recordsRead,
      batchesFailed: this.batchesFailed,
      lagRecords: this.pending,
      lagMs: this.pendingSince === undefined ? 0 : this.now() - this.pendingSince,
      caughtUp: this.pending === 0 && !this.lastReadFull,
    };
  }

  private emit(): void {
    try {
      this.report?.(this.snapshot());
    } catch {
      // A failing metrics sink must not end the feed.
    }
  }
}
