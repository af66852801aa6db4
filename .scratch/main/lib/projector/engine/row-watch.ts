import { backoffDelay, type Backoff } from '../../util';
import type { ReadRow } from './read-rows';

/** What a watch asks of the call whose row it watches. */
export interface RowWatchOptions<State> {
  /** Whether the row went further on for the call's events from `before` to `now`. */
  readonly moved: (before: ReadRow<State>, now: ReadRow<State>) => boolean;
  /** Whether the row is at or past every event of the call (nothing is left to write). */
  readonly covers: (row: ReadRow<State>) => boolean;
  /** The shortest time without a move after which the row's writer is taken to have stopped. */
  readonly stallMs: number;
  /** How long to wait between reads. */
  readonly backoff: Backoff;
}

/**
 * Watches a row another writer is bringing forward in several writes (an outbox's messages past one
 * transaction), which it marks `more` until its last. A write folded from the row as it stands would
 * lose to that writer's next one, and each lost write is a whole transaction for nothing, billed on AWS
 * and queued in front of the winner's next on DynamoDB Local, which then looks stalled to every other
 * watcher. So the row is read again until its writer is done, it covers the call's events, or it has not
 * moved for `stallMs` or three times the longest the writer took between two writes, whichever is
 * longer: then its writer is taken to have stopped (a crash, a timeout) and the row is written over.
 * Correctness never depends on the watch: every write is conditioned on the row as read.
 */
export class RowWatch<State> {
  private seen: ReadRow<State> | undefined;
  private movedAt = 0;
  private longestStepMs = 0;
  private reads = 0;

  constructor(private readonly options: RowWatchOptions<State>) {}

  /** Whether to read the row again (after {@link RowWatch.delay}) rather than fold and write it as read at `now`. */
  holdsOff(row: ReadRow<State>, now: number): boolean {
    if (!row.more || this.options.covers(row)) return this.end();
    if (this.seen === undefined || this.options.moved(this.seen, row)) {
      if (this.seen !== undefined) this.longestStepMs = Math.max(this.longestStepMs, now - this.movedAt);
      this.seen = row;
      this.movedAt = now;
      return true;
    }
    if (now - this.movedAt < Math.max(this.options.stallMs, 3 * this.longestStepMs)) return true;
    return this.end();
  }

  /** The wait before the next read of a watched row: growing as the backoff does, across the call's watches. */
  delay(): number {
    return backoffDelay(this.reads++, this.options.backoff);
  }

  private end(): false {
    this.seen = undefined;
    return false;
  }
}
