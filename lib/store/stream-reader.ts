import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { fromEventItem, type EventCodec } from './event-codec';
import { eventVersionOf } from './event-item-keys';
import { Layout, MAX_VERSION, eventSortKey, partitionKeyOf, snapshotSortKey, versionOfSortKey } from './layout';
import { request } from '../dynamo';
import { decodeSnapshot, type Snapshot } from './snapshots';
import type { StreamEvent } from './types';

/** A version range of one stream instance, inclusive at both ends. */
export interface VersionRange {
  readonly fromVersion: number;
  readonly toVersion: number;
}

/** How a read pages: items per page, and whether its Queries are strongly consistent. */
export interface Reading {
  readonly pageSize: number;
  readonly consistent: boolean;
}

/**
 * Pages through a stream instance's events in version order, one page at a time, so a stream of any
 * length is read in bounded memory. Each Query asks for one item more than a page: when it comes, another
 * page follows (it is read again as that page's first item); when it doesn't, this page was the last, so a
 * stream that ends on a page boundary costs no empty Query (a `LastEvaluatedKey` alone would ask again).
 */
export async function* readEvents(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
  range: VersionRange,
  reading: Reading,
): AsyncGenerator<StreamEvent> {
  let from = Math.max(1, range.fromVersion);
  while (from <= range.toVersion) {
    const page = await request('Query', table, () =>
      documents.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
          ExpressionAttributeNames: { '#pk': Layout.partitionKey, '#sk': Layout.sortKey },
          ExpressionAttributeValues: {
            ':pk': partitionKeyOf(codec.streamName, streamId),
            ':from': eventSortKey(from),
            ':to': eventSortKey(range.toVersion),
          },
          ConsistentRead: reading.consistent,
          Limit: reading.pageSize + 1,
        }),
      ),
    );
    const items = page.Items ?? [];
    let last: number | undefined;
    for (const item of items.slice(0, reading.pageSize)) {
      const event = fromEventItem(codec, item);
      last = event.version;
      yield event;
    }
    // Fewer items than asked for and no `LastEvaluatedKey`: the range is exhausted. With one, DynamoDB
    // stopped at 1 MB, and the page goes on after the last item returned.
    const more = items.length > reading.pageSize || page.LastEvaluatedKey !== undefined;
    if (!more || last === undefined) return;
    from = last + 1;
  }
}

/**
 * The stream instance's latest version (0 for a stream with no events), read strongly consistent from
 * the latest event's sort key (the keys are all it projects).
 */
export async function readHead(documents: DynamoDBDocumentClient, table: string, codec: EventCodec, streamId: string): Promise<number> {
  const page = await request('Query', table, () =>
    documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': Layout.partitionKey, '#sk': Layout.sortKey },
        ExpressionAttributeValues: { ':pk': partitionKeyOf(codec.streamName, streamId), ':prefix': Layout.eventPrefix },
        ProjectionExpression: '#pk, #sk',
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: 1,
      }),
    ),
  );
  const latest = page.Items?.[0];
  return latest === undefined ? 0 : eventVersionOf(codec, latest);
}

/** What one Query from a snapshot's key down through the newest events read. */
export interface SnapshotPage<Event = StreamEvent> {
  /** The snapshot under the name asked for, when one is saved at its key. */
  readonly snapshot: Snapshot<unknown> | undefined;
  /** The newest events the Query reached after the snapshot's version, in version order. */
  readonly newest: ReadonlyArray<Event>;
  /** `newest` holds every event from this version to the head the Query saw (1 when it read them all). */
  readonly from: number;
}

/**
 * Reads a stream instance's snapshot under `name` and its newest events in ONE Query, newest first: the
 * snapshot's sort key sorts right after the events (see `Layout`), so the Query starts at the snapshot
 * and goes on down through the events from the head, `limit` items at most (see `snapshotPageLimit`);
 * snapshots of other names that sort before this one are read and passed over. What the page does not
 * reach, the load reads ascending (`readEvents`).
 */
export async function readSnapshotPage(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
  name: string,
  reading: { readonly limit: number; readonly consistent: boolean },
): Promise<SnapshotPage> {
  const key = snapshotSortKey(name);
  const page = await request('Query', table, () =>
    documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :snapshot',
        ExpressionAttributeNames: { '#pk': Layout.partitionKey, '#sk': Layout.sortKey },
        ExpressionAttributeValues: { ':pk': partitionKeyOf(codec.streamName, streamId), ':first': eventSortKey(1), ':snapshot': key },
        ScanIndexForward: false,
        ConsistentRead: reading.consistent,
        Limit: reading.limit,
      }),
    ),
  );
  const items = page.Items ?? [];
  // Newest first, so the snapshot (when there is one) is the first item.
  const first = items[0];
  const snapshot = first !== undefined && first[Layout.sortKey] === key ? decodeSnapshot(codec, streamId, name, first) : undefined;
  const covered = snapshot?.version ?? 0;
  const newest: StreamEvent[] = [];
  let lowest: number | undefined;
  for (const item of items) {
    const sortKey = item[Layout.sortKey];
    // The snapshot, and snapshots of other names, are no events.
    if (typeof sortKey !== 'string' || !sortKey.startsWith(Layout.eventPrefix)) continue;
    const version = versionOfSortKey(sortKey);
    if (version !== undefined) lowest = version;
    // Events the snapshot covers are not decoded: the load does not fold them, and an old one may no
    // longer decode. A broken key is decoded, to fail as every reader does.
    if (version === undefined || version > covered) newest.push(fromEventItem(codec, item));
  }
  newest.reverse();
  // Without a LastEvaluatedKey the Query read every event; otherwise those from the lowest it reached.
  const reached = page.LastEvaluatedKey === undefined ? 1 : (lowest ?? MAX_VERSION + 1);
  return { snapshot, newest, from: Math.max(reached, covered + 1) };
}
