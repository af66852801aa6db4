/**
 * How event streams are laid out in their table. One partition per stream instance
 * (`pk = <streamName>#<streamId>`); in it one item per event (`sk = e#<version, zero-padded>`), one
 * snapshot item per snapshot name (`sk = e$snapshot#<name>`) and one sentinel item per idempotency key
 * (`sk = i#<key>`). The marker attributes tell the three apart from each other and from any other item
 * sharing the table.
 *
 * Sort keys order a partition as events, then snapshots (`$` sorts right after `#`), then sentinels: one
 * Query, newest first, from a snapshot's key reads the snapshot and the newest events with no sentinel
 * in between (see `readSnapshotPage`).
 */
export const Layout = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** On event items: the stream's name. Decoders and filter patterns key on it. */
  eventMarker: '_df',
  /** On snapshot items: the stream's name. */
  snapshotMarker: '_dfSnapshot',
  /** On idempotency sentinels: the stream's name. */
  idempotencyMarker: '_dfIdempotency',
  /** On event items: the compression of a binary `data`, absent for plain data. */
  encoding: 'enc',
  /** On event items: the version of the event's type its data has, absent for version 1 (and before types had versions). */
  typeVersion: 'tv',
  eventPrefix: 'e#',
  /** Snapshots' sort keys: this, `#` and the snapshot's name. */
  snapshotPrefix: 'e$snapshot#',
  /** Where 0.2 kept snapshots (`snapshot#<name>`, after the sentinels): read while no snapshot is at the new key. */
  legacySnapshotPrefix: 'snapshot#',
  idempotencyPrefix: 'i#',
  versionDigits: 10,
} as const;

export function partitionKeyOf(streamName: string, streamId: string): string {
  return `${streamName}#${streamId}`;
}

/**
 * A stream instance's identity across every stream: its stream's name and its id together (the partition
 * its events live in). Stream names hold no `#`, so the pair can't be confused with another.
 */
export function instanceKey(event: { readonly streamName: string; readonly streamId: string }): string {
  return partitionKeyOf(event.streamName, event.streamId);
}

export function eventSortKey(version: number): string {
  return Layout.eventPrefix + String(version).padStart(Layout.versionDigits, '0');
}

export function snapshotSortKey(name: string): string {
  return Layout.snapshotPrefix + name;
}

/** The largest version a sort key can hold. */
export const MAX_VERSION = 10 ** Layout.versionDigits - 1;
