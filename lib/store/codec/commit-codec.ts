import { DecodeError, isTransient } from '../../errors';
import type { EventCodec, ValidEvent } from './event-codec';
import { appendedAtOf, commitSpanOf, whereItem, type CommitSpan } from './commit-keys';
import { Layout, MAX_VERSION, eventSortKey, partitionKeyOf } from '../layout';
import { decodeStoredEvent, writtenEvent, type StoredEventPlace } from './stored-event';
import type { StreamEvent } from '../types';
import { storedTraceContext, traceContextBytes, type TraceContext } from '../../telemetry';

type Item = Readonly<Record<string, unknown>>;

/** A version range of one stream instance, inclusive at both ends. */
export interface VersionRange {
  readonly fromVersion: number;
  readonly toVersion: number;
}

const everyVersion: VersionRange = { fromVersion: 1, toVersion: MAX_VERSION };

/** What a commit records of the append that wrote it, once for all its events. */
export interface CommitStamp {
  /** When the append took place, in epoch milliseconds. */
  readonly appendedAt: number;
  /** The trace context of the append's span, when the stream stores it. */
  readonly trace?: TraceContext | undefined;
  /** The append's id (see `Layout.appendId`). */
  readonly appendId?: string | undefined;
}

/**
 * The item that stores events as one commit of the stream instance `streamId`, from version `first`, given
 * each event's stored attributes (`storedEventAttributes`) and the append's `stamp`: one event at the top
 * level, as every item before commits held one, or several in a list beside their count (see `Layout`).
 */
export function toCommitItem(
  codec: EventCodec,
  streamId: string,
  first: number,
  events: ReadonlyArray<Readonly<Record<string, unknown>>>,
  stamp: CommitStamp,
): Record<string, unknown> {
  const item: Record<string, unknown> = {
    [Layout.partitionKey]: partitionKeyOf(codec.streamName, streamId),
    [Layout.sortKey]: eventSortKey(first),
    [Layout.eventMarker]: codec.streamName,
    [Layout.appendedAt]: stamp.appendedAt,
  };
  if (stamp.appendId !== undefined) item[Layout.appendId] = stamp.appendId;
  const stored = stamp.trace === undefined ? undefined : traceContextBytes(stamp.trace);
  if (stored !== undefined) item[Layout.traceContext] = stored;
  const [only] = events;
  if (events.length === 1 && only !== undefined) return Object.assign(item, only);
  item[Layout.eventCount] = events.length;
  item[Layout.events] = events;
  return item;
}

/** Whether `item` is a commit the append `appendId` wrote. */
export function isCommitOf(item: Readonly<Record<string, unknown>>, appendId: string): boolean {
  return item[Layout.appendId] === appendId;
}

/**
 * Decodes a commit (already unmarshalled) into its events in version order, those in `range` only (the
 * others are not decoded, so an old event outside the range that no longer decodes costs nothing). A
 * broken commit is a {@link DecodeError}, as is any broken event in the range (see `decodeStoredEvent`).
 * Every event of the range is decoded before the commit is judged: when any fails transiently (one newer
 * code wrote, during a rolling deploy), the commit fails with that event's error, whatever else it holds,
 * so it is retried rather than skipped or counted towards parking; otherwise with its first failure.
 */
export function fromCommitItem(codec: EventCodec, item: Item, range: VersionRange = everyVersion): StreamEvent[] {
  const span = commitSpanOf(codec, item);
  const events: StreamEvent[] = [];
  const timestamp = appendedAtOf(codec, item);
  const trace = storedTraceContext(item[Layout.traceContext]);
  const stored = storedEventsOf(codec, item, span);
  const from = Math.max(0, range.fromVersion - span.first);
  const to = Math.min(span.count - 1, range.toVersion - span.first);
  const failures: unknown[] = [];
  for (let index = from; index <= to; index++) {
    try {
      events.push(decodeStoredEvent(codec, stored[index] as Item, placeOf(codec, item, span, index, timestamp, trace)));
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures.find(isTransient) ?? failures[0];
  return events;
}

/**
 * The events an append just wrote as this commit, without decoding it again (see `writtenEvent`):
 * `events` from the commit's first on (those past its count belong to the next commit).
 */
export function writtenEvents(codec: EventCodec, item: Item, events: ReadonlyArray<ValidEvent>): StreamEvent[] {
  const span = commitSpanOf(codec, item);
  const timestamp = appendedAtOf(codec, item);
  const trace = storedTraceContext(item[Layout.traceContext]);
  return storedEventsOf(codec, item, span).map((stored, index) =>
    writtenEvent(codec, stored, events[index] as ValidEvent, placeOf(codec, item, span, index, timestamp, trace)),
  );
}

/** The attributes of each event a commit holds: the item itself for a commit of one, else its list's maps. */
function storedEventsOf(codec: EventCodec, item: Item, span: CommitSpan): ReadonlyArray<Item> {
  const list = item[Layout.events];
  if (span.count === 1) {
    if (list === undefined) return [item];
    throw new DecodeError(
      `${whereItem(codec, item)} holds a list of events but no count '${Layout.eventCount}': an append writes both, or neither for one event.`,
      codec.streamName,
    );
  }
  if (!Array.isArray(list) || list.length !== span.count || !list.every(isMap)) {
    const held = Array.isArray(list) ? `a list of ${list.length}` : typeof list;
    throw new DecodeError(
      `${whereItem(codec, item)} counts ${span.count} events but its '${Layout.events}' holds ${held}: an append writes one map per event.`,
      codec.streamName,
    );
  }
  return list as ReadonlyArray<Item>;
}

function isMap(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function placeOf(
  codec: EventCodec,
  item: Item,
  span: CommitSpan,
  index: number,
  timestamp: string,
  trace: TraceContext | undefined,
): StoredEventPlace {
  const version = span.first + index;
  const where = span.count === 1 ? whereItem(codec, item) : `${whereItem(codec, item)}, event ${index + 1} of ${span.count} (version ${version})`;
  return { where, streamId: span.streamId, version, timestamp, trace };
}
