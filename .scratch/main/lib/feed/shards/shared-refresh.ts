import { sleep as abortableSleep } from '../../util';

/**
 * A refresh (a full DescribeStream) shared by every caller that asks while one is pending, and run at
 * most once per `minIntervalMs`: shards drained at the same time cost one describe, not one each.
 */
export class SharedRefresh<T> {
  private pending: Promise<T> | undefined;
  private lastStartedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly fetch: () => Promise<T>,
    private readonly minIntervalMs: number,
    private readonly signal: AbortSignal,
    private readonly clock: { now(): number; sleep(ms: number, signal: AbortSignal): Promise<void> } = { now: Date.now, sleep: abortableSleep },
  ) {}

  /** The pending refresh, or a new one once `minIntervalMs` has passed since the last one started. */
  run(): Promise<T> {
    this.pending ??= this.next().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Records a refresh done by other means (the describe at the start), so the interval counts from it. */
  markDone(at: number = this.clock.now()): void {
    this.lastStartedAt = at;
  }

  private async next(): Promise<T> {
    const wait = this.lastStartedAt + this.minIntervalMs - this.clock.now();
    if (wait > 0) await this.clock.sleep(wait, this.signal);
    this.lastStartedAt = this.clock.now();
    return this.fetch();
  }
}
