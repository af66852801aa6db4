import { sleep, log, type Logger } from '../util';
import {
  SharedRefresh,
  canStart,
  discoveredPosition,
  newShards,
  streamEnded,
  type PlannedShard,
  type ShardInfo,
  type ShardPosition,
  readShard,
  type ShardReaderContext,
  probe,
  type StreamSnapshot,
  type StreamsApi,
} from './shards';
import type { ChangeFeedBatch } from './batch';
import type { Channel } from './channel';
import type { ShardCheckpoint } from './checkpoints';
import { ShardMeter, type ShardMetrics } from './metrics';

/** What the coordinator needs from its feed. */
export interface CoordinatorOptions {
  readonly api: StreamsApi;
  readonly channel: Channel<ChangeFeedBatch>;
  /** Ends the feed with an error. */
  readonly fail: (error: unknown) => void;
  readonly signal: AbortSignal;
  readonly pollIntervalMs: number;
  readonly describeIntervalMs: number;
  /** How long after the end was first seen a describe must still list no new shard (see ChangeFeedOptions). */
  readonly disabledSettleMs: number;
  readonly logger: Logger | undefined;
  readonly onMetrics: ((metrics: ShardMetrics) => void) | undefined;
  /** The checkpoints loaded at the start, for shards discovered later. */
  readonly checkpoints: ReadonlyMap<string, ShardCheckpoint>;
  /** What every shard reader shares; the coordinator adds its own `confirmClosed`. */
  readonly readerContext: Omit<ShardReaderContext, 'confirmClosed'>;
}

interface TrackedShard {
  readonly info: ShardInfo;
  readonly position: ShardPosition;
  running: boolean;
}

/**
 * Keeps the set of shards and their lineage while the feed runs: starts a shard's reader once its parent
 * is finished or gone, discovers new shards (a describe every `describeIntervalMs`; the children of a
 * drained shard at once with ShardFilter, falling back to a full describe shared by every shard drained
 * meanwhile, at most one per `pollIntervalMs`), and closes the channel when the stream is disabled,
 * every shard is drained, and a describe made `disabledSettleMs` later lists no new shard.
 */
export class ShardCoordinator {
  private readonly tracked = new Map<string, TrackedShard>();
  private readonly finished = new Set<string>();
  private readonly meters = new Map<string, ShardMeter>();
  private readonly tasks = new Set<Promise<void>>();
  /**
   * Parents of tracked shards that no describe has listed yet, and that are not known to be gone: their
   * children wait. DescribeStream is eventually consistent and may list a child before its parent.
   */
  private readonly unlistedParents = new Set<string>();
  private readonly probing = new Set<string>();
  private described: StreamSnapshot = { status: undefined, shards: [] };
  /** When the newest full describe was sent. */
  private describedAt = Number.NEGATIVE_INFINITY;
  /** When the stream was first seen disabled with every listed shard drained. */
  private endSeenAt: number | undefined;
  private settling = false;
  private ended = false;
  private readonly refresher: SharedRefresh<StreamSnapshot>;

  constructor(private readonly options: CoordinatorOptions) {
    this.refresher = new SharedRefresh(
      async () => {
        const sentAt = Date.now();
        const snapshot = await options.api.describe();
        this.describedAt = Math.max(this.describedAt, sentAt);
        this.absorb(snapshot);
        return snapshot;
      },
      options.pollIntervalMs,
      options.signal,
    );
  }

  /** Starts from the plan: `read` are the shards to read, `finished` those done already. */
  begin(read: ReadonlyArray<PlannedShard>, finished: Iterable<string>, snapshot: StreamSnapshot): void {
    for (const shardId of finished) this.finished.add(shardId);
    for (const shard of read) this.track(shard, shard.position);
    this.refresher.markDone();
    this.absorb(snapshot);
    this.spawn(this.describeEvery());
  }

  /** Figures of every shard seen, for `feed.status()`. */
  metrics(): ShardMetrics[] {
    return [...this.meters.values()].map((meter) => meter.snapshot());
  }

  /**
   * Whether every shard, since `marks` were taken, reached its tip (or is finished), with nothing read
   * waiting for its acknowledgement. Two empty reads since, not one: the first may have been asked for
   * before the marks were taken, and so before the writes the caller waits for.
   */
  caughtUpSince(marks: ReadonlyMap<string, number>): boolean {
    for (const [shardId, meter] of this.meters) {
      if (this.finished.has(shardId)) continue;
      if (!meter.settledAll || meter.emptyReads < (marks.get(shardId) ?? 0) + 2) return false;
    }
    return true;
  }

  /** Each shard's empty reads so far, to tell later ones from (see {@link caughtUpSince}). */
  emptyReadMarks(): Map<string, number> {
    return new Map([...this.meters].map(([shardId, meter]) => [shardId, meter.emptyReads]));
  }

  /** Waits for every reader and loop to end (after the signal aborted or the stream ended). */
  async settle(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }

  /** Whether a shard that gave no next iterator is closed, describing the stream again if it looked open. */
  private async confirmClosed(shardId: string): Promise<boolean> {
    if (this.shardInfo(shardId)?.closed === true) return true;
    const snapshot = await this.refresh();
    const listed = snapshot.shards.find((shard) => shard.shardId === shardId);
    // A shard no longer listed has left the stream: having given no iterator, it has nothing more to read.
    return listed === undefined || listed.closed;
  }

  private shardInfo(shardId: string): ShardInfo | undefined {
    return this.tracked.get(shardId)?.info ?? this.described.shards.find((shard) => shard.shardId === shardId);
  }

  private track(info: ShardInfo, position: ShardPosition): void {
    if (this.tracked.has(info.shardId) || this.finished.has(info.shardId)) return;
    this.tracked.set(info.shardId, { info, position, running: false });
    this.meter(info.shardId);
  }

  private meter(shardId: string): ShardMeter {
    let meter = this.meters.get(shardId);
    if (meter === undefined) {
      meter = new ShardMeter(shardId, this.options.onMetrics);
      this.meters.set(shardId, meter);
    }
    return meter;
  }

  /** Starts every waiting shard whose parent is no longer pending, then checks whether the feed is over. */
  private startReady(): void {
    this.checkParents();
    const pending = new Set([...this.tracked.keys(), ...this.unlistedParents]);
    for (const shard of this.tracked.values()) {
      if (shard.running || !canStart(shard.info, pending)) continue;
      shard.running = true;
      this.spawn(this.pump(shard));
    }
    if (streamEnded(this.described.status, this.described.shards, this.finished, this.tracked.size + this.unlistedParents.size))
      this.endOnceSettled();
  }

  /**
   * Ends the feed once a describe sent `disabledSettleMs` after the end was first seen lists no new shard:
   * the listing is eventually consistent, and a child opened just before the stream was disabled may be
   * missing from it. A shard that does turn up is read, and the end is seen again once it is drained.
   */
  private endOnceSettled(): void {
    if (this.ended) return;
    this.endSeenAt ??= Date.now();
    const settledFrom = this.endSeenAt + this.options.disabledSettleMs;
    if (this.options.disabledSettleMs === 0 || this.describedAt >= settledFrom) {
      log(this.options.logger, 'info', { status: this.described.status }, 'stream disabled and every shard drained: the feed ends');
      this.ended = true;
      this.options.channel.close();
      return;
    }
    if (this.settling) return;
    this.settling = true;
    log(this.options.logger, 'debug', { settleMs: this.options.disabledSettleMs }, 'stream disabled and drained: describing it again before ending');
    this.spawn(
      (async () => {
        try {
          await sleep(Math.max(0, settledFrom - Date.now()), this.options.signal);
          await this.refresh();
        } finally {
          this.settling = false;
        }
        this.startReady();
      })(),
    );
  }

  /**
   * Finds the parents of tracked shards that are neither tracked nor finished, and asks GetShardIterator
   * about each (once at a time): a parent gone (not found, or trimmed) no longer holds its children back;
   * one that answers waits for a describe to list it, with its own parent, so that its lineage is kept.
   */
  private checkParents(): void {
    for (const parent of this.unlistedParents) {
      if (this.tracked.has(parent) || this.finished.has(parent)) this.unlistedParents.delete(parent);
    }
    for (const { info } of this.tracked.values()) {
      const parent = info.parentShardId;
      if (parent === undefined || this.tracked.has(parent) || this.finished.has(parent) || this.probing.has(parent)) continue;
      this.unlistedParents.add(parent);
      this.probing.add(parent);
      this.spawn(this.probeParent(parent));
    }
  }

  private async probeParent(parent: string): Promise<void> {
    try {
      const position = discoveredPosition(this.options.checkpoints.get(parent)) ?? { type: 'TRIM_HORIZON' };
      const verdict = await probe(this.options.api, parent, position);
      if (verdict === 'gone') {
        log(this.options.logger, 'info', { shardId: parent }, 'parent shard left the stream: its children start');
        this.unlistedParents.delete(parent);
        this.finished.add(parent);
        this.startReady();
      } else {
        log(this.options.logger, 'info', { shardId: parent }, 'parent shard not listed yet: its children wait');
        // A later describe lists it (absorb tracks it); until then, ask again at the next describe.
        await sleep(this.options.describeIntervalMs, this.options.signal);
      }
    } finally {
      this.probing.delete(parent);
    }
  }

  private async pump(shard: TrackedShard): Promise<void> {
    const { shardId } = shard.info;
    const context: ShardReaderContext = { ...this.options.readerContext, confirmClosed: (id) => this.confirmClosed(id) };
    for await (const batch of readShard(context, shardId, shard.position, this.meter(shardId))) {
      this.options.channel.push(batch);
    }
    this.tracked.delete(shardId);
    this.finished.add(shardId);
    await this.discoverChildren(shardId);
  }

  private async discoverChildren(shardId: string): Promise<void> {
    const children = await this.options.api.childShards(shardId);
    if (children !== undefined && children.length > 0) {
      for (const child of children) this.trackDiscovered(child);
      this.startReady();
      return;
    }
    await this.refresh();
  }

  private trackDiscovered(shard: ShardInfo): void {
    const position = discoveredPosition(this.options.checkpoints.get(shard.shardId));
    if (position === undefined) this.finished.add(shard.shardId);
    else this.track(shard, position);
  }

  /** A full describe, shared by every caller meanwhile and at most one per `pollIntervalMs`. */
  private refresh(): Promise<StreamSnapshot> {
    return this.refresher.run();
  }

  private absorb(snapshot: StreamSnapshot): void {
    this.described = snapshot;
    for (const shard of newShards(snapshot.shards, (id) => this.tracked.has(id) || this.finished.has(id))) {
      log(this.options.logger, 'info', { shardId: shard.shardId, parentShardId: shard.parentShardId }, 'new shard found');
      this.trackDiscovered(shard);
    }
    this.startReady();
  }

  private async describeEvery(): Promise<void> {
    for (;;) {
      await sleep(this.options.describeIntervalMs, this.options.signal);
      await this.refresh();
    }
  }

  /** Runs a task; its failure fails the feed, unless the feed is stopping anyway. */
  private spawn(task: Promise<void>): void {
    const tracked = task.catch((error: unknown) => {
      if (!this.options.signal.aborted) this.options.fail(error);
    });
    this.tasks.add(tracked);
    void tracked.finally(() => this.tasks.delete(tracked));
  }
}
