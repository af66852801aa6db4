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
  /** By stream id, least recently used first (a `Map` keeps insertion order). */
  private readonly ends = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  /** Notes that a commit of `streamId` ends at `version`. */
  remember(streamId: string, version: number): void {
    if (this.capacity === 0 || version <= 0) return;
    this.ends.delete(streamId);
    this.ends.set(streamId, version);
    if (this.ends.size > this.capacity) this.ends.delete(this.ends.keys().next().value as string);
  }

  /** Whether `version` is known to end a commit of `streamId`. */
  holds(streamId: string, version: number): boolean {
    const end = this.ends.get(streamId);
    if (end !== version) return false;
    // Used: it moves to the most recent end.
    this.ends.delete(streamId);
    this.ends.set(streamId, end);
    return true;
  }
}
