import { commitCountOf, fromCommitItem, fromSnapshotItem, type EventCodec } from '../codec';
import { Layout, MAX_VERSION, versionOfSortKey } from '../layout';
import type { Snapshot, StreamEvent } from '../types';

type Item = Readonly<Record<string, unknown>>;

/** What one Query from a snapshot's key down through the newest commits read. */
export interface SnapshotPage<Event = StreamEvent> {
  /** The snapshot under the name asked for, when one is saved at its key (and opens). */
  readonly snapshot: Snapshot<unknown> | undefined;
  /** A snapshot is saved at its key but sealed for a subject since forgotten: it never opens again (see `fromSnapshotItem`). */
  readonly forgottenSnapshot: boolean;
  /** The newest events the Query reached after the snapshot's version, in version order. */
  readonly newest: ReadonlyArray<Event>;
  /** `newest` holds every event from this version to the head the Query saw (1 when it read them all). */
  readonly from: number;
  /** The commits `newest` came from. */
  readonly newestCommits: number;
}

/**
 * The snapshot and newest events of a page read newest first from the snapshot's key (see
 * `snapshotPageQuery`), whose subjects' keys are loaded. Events the snapshot covers are not decoded; what
 * the page did not reach, the load reads ascending.
 */
export function snapshotPageOf(
  codec: EventCodec,
  streamId: string,
  snapshot: { readonly name: string; readonly sortKey: string },
  items: ReadonlyArray<Item>,
  readAll: boolean,
): SnapshotPage {
  // Newest first, so the snapshot (when there is one) is the first item.
  const first = items[0];
  const stored = first !== undefined && first[Layout.sortKey] === snapshot.sortKey ? first : undefined;
  const found = stored === undefined ? undefined : fromSnapshotItem(codec, streamId, snapshot.name, stored);
  const covered = found?.version ?? 0;
  const commits: StreamEvent[][] = [];
  let lowest: number | undefined;
  for (const item of items) {
    const sortKey = item[Layout.sortKey];
    // The snapshot, and snapshots of other names, are no events.
    if (typeof sortKey !== 'string' || !sortKey.startsWith(Layout.eventPrefix)) continue;
    const version = versionOfSortKey(sortKey);
    if (version !== undefined) lowest = version;
    // Events the snapshot covers are not decoded: the load does not fold them, and an old one may no
    // longer decode. A broken key is decoded, to fail as every reader does.
    if (version === undefined || version + commitCountOf(codec, item) - 1 > covered) {
      commits.push(fromCommitItem(codec, item, { fromVersion: covered + 1, toVersion: MAX_VERSION }));
    }
  }
  const newest = commits.reverse().flat();
  // Having read every item, the Query read every commit; otherwise those from the lowest it reached.
  const reached = readAll ? 1 : (lowest ?? MAX_VERSION + 1);
  return {
    snapshot: found,
    forgottenSnapshot: stored !== undefined && found === undefined,
    newest,
    from: Math.max(reached, covered + 1),
    newestCommits: commits.length,
  };
}
