import { RecentlyUsed } from '../../util';
import type { KnownCommitEnds } from './known-commit-ends';
import type { SnapshotPage } from './snapshot-page';

/** What a load from a snapshot found: the head version it reached, and how many commits were past the snapshot. */
interface SnapshotDistance {
  readonly head: number;
  readonly commitsPast: number;
}

/**
 * How many commits a load from a snapshot reads in its Query, with the snapshot (see `CommitLog.snapshotPage`),
 * for an `EventStream`'s most recently loaded instances. The Query reads newest first from the snapshot's key
 * and can't know the snapshot's version before it reads it: a commit read past those the load needs is
 * read for nothing (a commit holds an append's events, fifty after a bulk append), one short costs a second
 * Query. So a load reads as many commits as the instance's last load found past its snapshot, plus one per
 * version appended since that the stream saw (a commit holds one or more), plus one for another writer's
 * commit; at most `most` (`snapshotReadAhead`), and `most` for an instance it has not loaded lately.
 */
export class SnapshotReadAhead {
  /** By the snapshot's sort key, then the stream id. */
  private readonly bySnapshot = new Map<string, RecentlyUsed<SnapshotDistance>>();

  constructor(
    private readonly capacity: number,
    private readonly ends: KnownCommitEnds,
  ) {}

  /** Commits to read with the snapshot at `sortKey` of `streamId`, `most` at most. */
  commits(streamId: string, sortKey: string, most: number): number {
    const last = this.bySnapshot.get(sortKey)?.get(streamId);
    if (last === undefined) return most;
    const appendedSince = Math.max(0, (this.ends.latest(streamId) ?? last.head) - last.head);
    return Math.min(most, last.commitsPast + appendedSince + 1);
  }

  /** Notes what a load's `page`, read with at most `most` commits, found past the snapshot at `sortKey`. */
  found(streamId: string, sortKey: string, page: SnapshotPage, most: number): void {
    const covered = page.snapshot?.version ?? 0;
    // Short of the snapshot's version, the commits past it were `most` or more.
    const commitsPast = page.from <= covered + 1 ? page.newestCommits : most;
    let distances = this.bySnapshot.get(sortKey);
    if (distances === undefined) this.bySnapshot.set(sortKey, (distances = new RecentlyUsed(this.capacity)));
    distances.set(streamId, { head: page.newest.at(-1)?.version ?? covered, commitsPast });
  }
}
