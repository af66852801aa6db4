/**
 * How event streams are laid out in their table. One partition per stream instance
 * (`pk = <streamName>#<streamId>`); in it one item per append, a commit, keyed by its first version
 * (`sk = e#<version, zero-padded>`), one snapshot item per snapshot name (`sk = e$snapshot#<name>`) and
 * one sentinel item per idempotency key (`sk = i#<key>`). The marker attributes tell the three apart from
 * each other and from any other item sharing the table.
 *
 * A commit of one event holds it at the top level (`type`, `tv`, `data`, `enc`, `metadata`), as every
 * item 0.2 and 0.3 wrote does; a commit of several holds them in order in a list ({@link Layout.events})
 * beside their count ({@link Layout.eventCount}). Commits are never changed or deleted, and they tile a
 * stream's versions from 1 with neither gap nor overlap (see `appendWithRetries` for why).
 *
 * Sort keys order a partition as events, then snapshots (`$` sorts right after `#`), then sentinels: one
 * Query, newest first, from a snapshot's key reads the snapshot and the newest events with no sentinel
 * in between (see `CommitLog.snapshotPage`).
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
  /**
   * On commits of several events: how many they hold (2 or more). A commit without it holds one event,
   * at the top level.
   */
  eventCount: 'count',
  /**
   * On commits of several events: their events in version order, each a map of the attributes a commit of
   * one holds at the top level (`type`, `tv`, `data`, `enc`, `metadata`).
   */
  events: 'events',
  /**
   * On event items (and snapshots, outbox messages) that hold personal data: per subject, what is sealed
   * with its key. An event's personal fields are left out of `data` and sealed one by one here (subject →
   * field → sealed bytes); a snapshot's state or a message is sealed whole, and this holds each subject's
   * share of its key (subject → sealed share). See `personalData`.
   */
  personal: 'pd',
  /** On event items: the compression of a binary `data`, absent for plain data. */
  encoding: 'enc',
  /** On event items: the version of the event's type its data has, absent for version 1 (and before types had versions). */
  typeVersion: 'tv',
  /**
   * On event items: when the append took place, in epoch milliseconds (10 bytes with its name, where
   * 0.2's ISO `timestamp` took 33). The stream id and the version are stored only in `pk` and `sk`.
   */
  appendedAt: 'ts',
  /**
   * On commits: the W3C trace context of the append's span, once for all its events (binary: the
   * traceparent's fields, then the tracestate's UTF-8; 28 bytes with its name), when a span was active and
   * the stream stores it (`traceContext`). Absent otherwise.
   */
  traceContext: 'tc',
  /**
   * On commits: the id of the append that wrote it (8 characters, see `newWriteId`), so that an append whose
   * request DynamoDB applied but whose answer was lost knows its own commit when the SDK's retry meets it.
   */
  appendId: 'ap',
  eventPrefix: 'e#',
  /** Snapshots' sort keys: this, `#` and the snapshot's name. */
  snapshotPrefix: 'e$snapshot#',
  /** Where 0.2 kept snapshots (`snapshot#<name>`, after the sentinels): read while no snapshot is at the new key. */
  legacySnapshotPrefix: 'snapshot#',
  idempotencyPrefix: 'i#',
  versionDigits: 10,
} as const;

/** The attributes of an idempotency sentinel besides its key and marker. */
export const SentinelAttributes = {
  fromVersion: 'fromVersion',
  toVersion: 'toVersion',
  timestamp: 'timestamp',
  /** A SHA-256 of what the key stood for (see `requestHash`); absent on sentinels written before it existed. */
  requestHash: 'requestHash',
  /**
   * With `idempotencyTtl`: when the key is free again, in epoch milliseconds. The TTL attribute holds
   * epoch seconds (what DynamoDB TTL reads), too coarse to hold a key for exactly `durationMs`.
   */
  expiresAtMs: 'expiresAtMs',
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

/** The sort key of the snapshot named `name`: it sorts right after the stream's events. */
export function snapshotSortKey(name: string): string {
  return Layout.snapshotPrefix + name;
}

/**
 * The version an event's sort key holds (the inverse of {@link eventSortKey}), or `undefined` for any other key.
 * Read digit by digit: every commit written and read goes through here, and a regular expression cost more.
 */
export function versionOfSortKey(sortKey: unknown): number | undefined {
  const prefix = Layout.eventPrefix;
  if (typeof sortKey !== 'string' || sortKey.length !== prefix.length + Layout.versionDigits || !sortKey.startsWith(prefix)) return undefined;
  let version = 0;
  for (let index = prefix.length; index < sortKey.length; index++) {
    const digit = sortKey.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return undefined;
    version = version * 10 + digit;
  }
  return version >= 1 ? version : undefined;
}

/** The stream id a partition key of `streamName` holds (the inverse of {@link partitionKeyOf}), or `undefined` for another stream's. */
export function streamIdOfPartitionKey(streamName: string, partitionKey: unknown): string | undefined {
  const prefix = partitionKeyOf(streamName, '');
  return typeof partitionKey === 'string' && partitionKey.startsWith(prefix) ? partitionKey.slice(prefix.length) : undefined;
}

/**
 * Attributes event items written by 0.2 carry and appends no longer write: the stream id and version
 * repeated from the keys, and the append time as an ISO 8601 string (now {@link Layout.appendedAt}).
 * They are still read, so a table written by 0.2 needs no migration.
 */
export const LegacyEventAttributes = { streamId: 'streamId', version: 'version', timestamp: 'timestamp' } as const;

/** The largest version a sort key can hold. */
export const MAX_VERSION = 10 ** Layout.versionDigits - 1;
