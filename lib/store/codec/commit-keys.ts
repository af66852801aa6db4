import { DecodeError } from '../../errors';
import { isoTime } from '../../util';
import type { EventCodec } from './event-codec';
import { Layout, LegacyEventAttributes, eventSortKey, partitionKeyOf, streamIdOfPartitionKey, versionOfSortKey } from '../layout';

type Item = Readonly<Record<string, unknown>>;

/** Where a broken item is, for its error's message. */
export function whereItem(codec: EventCodec, item: Item): string {
  return `Event item ${String(item[Layout.partitionKey])} ${String(item[Layout.sortKey])} of stream ${codec.streamName}`;
}

/**
 * A stored value as an error's message shows it. Numbers past ±2^53 come back from DynamoDB as bigints,
 * which JSON can't write.
 */
export function storedValueText(value: unknown): string {
  return typeof value === 'bigint' ? String(value) : JSON.stringify(value);
}

/** Which versions of which stream instance a commit holds. */
export interface CommitSpan {
  readonly streamId: string;
  /** The version of its first event, which its sort key holds. */
  readonly first: number;
  /** How many events it holds, from 1. */
  readonly count: number;
}

/**
 * The stream id, first version and event count of a commit, read from its keys and count: `pk` is
 * `<streamName>#<streamId>`, `sk` is `e#` and the first version in 10 digits, and a commit without a
 * count holds one event. An item written by 0.2 repeats the id and version in attributes of their own;
 * they must agree with the keys, since readers of either would otherwise see two different events.
 * A broken item is a {@link DecodeError}.
 */
export function commitSpanOf(codec: EventCodec, item: Item): CommitSpan {
  const streamId = streamIdOfPartitionKey(codec.streamName, item[Layout.partitionKey]);
  if (streamId === undefined) {
    throw new DecodeError(
      `${whereItem(codec, item)}: its partition key does not start with "${partitionKeyOf(codec.streamName, '')}", as every event of the stream's does, so the item was not written by an append of this stream.`,
      codec.streamName,
    );
  }
  const first = commitFirstVersionOf(codec, item);
  const count = commitCountOf(codec, item);
  agreesWithKey(codec, item, LegacyEventAttributes.streamId, streamId, 'partition');
  agreesWithKey(codec, item, LegacyEventAttributes.version, first, 'sort');
  return { streamId, first, count };
}

/** The first version a commit's sort key holds; a sort key that holds none is a {@link DecodeError}. */
export function commitFirstVersionOf(codec: EventCodec, item: Item): number {
  const version = versionOfSortKey(item[Layout.sortKey]);
  if (version !== undefined) return version;
  throw new DecodeError(
    `${whereItem(codec, item)}: its sort key is not "${Layout.eventPrefix}" and a version of ${Layout.versionDigits} digits from 1 (${eventSortKey(1)}), so the item was not written by an append.`,
    codec.streamName,
  );
}

/** How many events a commit holds: its count, or 1 without one. A count an append never writes is a {@link DecodeError}. */
export function commitCountOf(codec: EventCodec, item: Item): number {
  const count = item[Layout.eventCount];
  if (count === undefined) return 1;
  if (typeof count === 'number' && Number.isSafeInteger(count) && count >= 2) return count;
  throw new DecodeError(
    `${whereItem(codec, item)} has the event count '${Layout.eventCount}' ${storedValueText(count)}: an append writes an integer from 2, or none for one event.`,
    codec.streamName,
  );
}

/** The last version a commit holds. */
export function commitEndOf(codec: EventCodec, item: Item): number {
  return commitFirstVersionOf(codec, item) + commitCountOf(codec, item) - 1;
}

/** A 0.2 item's copy of a key's value, if it has one, must be that value. */
function agreesWithKey(codec: EventCodec, item: Item, attribute: string, fromKey: string | number, key: 'partition' | 'sort'): void {
  const stored = item[attribute];
  if (stored === undefined || stored === fromKey) return;
  throw new DecodeError(
    `${whereItem(codec, item)} holds the ${attribute} ${storedValueText(stored)} where its ${key} key says ${JSON.stringify(fromKey)}: the item was not written by an append.`,
    codec.streamName,
  );
}

/**
 * When a commit was appended, as the ISO 8601 string events carry: from the epoch milliseconds appends
 * store, or the string a 0.2 item stores. An item with neither reads as `''`, as it always did.
 */
export function appendedAtOf(codec: EventCodec, item: Item): string {
  const ms = item[Layout.appendedAt];
  if (ms === undefined) {
    const legacy = item[LegacyEventAttributes.timestamp];
    return typeof legacy === 'string' ? legacy : '';
  }
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || Math.abs(ms) > MAX_DATE_MS) {
    throw new DecodeError(
      `${whereItem(codec, item)} has the append time '${Layout.appendedAt}' ${storedValueText(ms)}: an append writes an integer of epoch milliseconds.`,
      codec.streamName,
    );
  }
  return isoTime(ms);
}

/** The largest epoch milliseconds a `Date` holds, either side of 1970. */
const MAX_DATE_MS = 8.64e15;
