import { RecentlyUsed } from '../../util';

/**
 * The last version an `EventStream` saw end a commit, per stream instance, for its most recently used
 * instances: what it appended, the head a load or a read of the head reached, the end of a commit that beat
 * one of its appends. Commits are never changed or deleted, so a version that ended a commit ends one for
 * good, and an append at it needs no read to prove it (see `appendWithRetries`). A writer that goes on from
 * its own last append — the version its result gave — thus appends with one request.
 *
 * Bounded: past `capacity` instances the least recently used is forgotten, and then proved by a read again.
 */
export class KnownCommitEnds {
  private readonly ends: RecentlyUsed<number>;

  constructor(capacity: number) {
    this.ends = new RecentlyUsed(capacity);
  }

  /** Notes that a commit of `streamId` ends at `version`. */
  remember(streamId: string, version: number): void {
    if (version > 0) this.ends.set(streamId, version);
  }

  /** Whether `version` is known to end a commit of `streamId`. */
  holds(streamId: string, version: number): boolean {
    return this.latest(streamId) === version;
  }

  /** The last version known to end a commit of `streamId`, if one is. */
  latest(streamId: string): number | undefined {
    return this.ends.get(streamId);
  }
}
