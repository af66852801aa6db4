/**
 * How event streams are laid out in their table. One partition per stream instance
 * (`pk = <streamName>#<streamId>`); in it one item per event (`sk = e#<version, zero-padded>`), one
 * snapshot item and one sentinel item per idempotency key. The marker attributes tell the three apart
 * from each other and from any other item sharing the table.
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
  snapshotSortKey: 'snapshot',
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

/** The largest version a sort key can hold. */
export const MAX_VERSION = 10 ** Layout.versionDigits - 1;
