import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { fromCommitItem, type VersionRange, commitCountOf, commitFirstVersionOf, commitEndOf, type EventCodec } from '../codec';
import { Layout, MAX_VERSION, eventSortKey, partitionKeyOf, snapshotSortKey, versionOfSortKey } from '../layout';
import { request } from '../../dynamo';
import { decodeSnapshot, type Snapshot } from './snapshots';
import { loadKeysOf } from '../codec';
import type { StreamEvent } from '../types';

export type { VersionRange } from '../codec';

/** How a read pages: commits per page, and whether its Queries are strongly consistent. */
export interface Reading {
  readonly pageSize: number;
  readonly consistent: boolean;
  /** The version before the range is known to end a commit: no commit before the range holds its first version. */
  readonly afterCommitEnd: boolean;
}

/**
 * Pages through a stream instance's events in version order, one page of commits at a time, so a stream
 * of any length is read in bounded memory. Each Query asks for one commit more than a page: when it comes,
 * another page follows (it is read again as that page's first); when it doesn't, this page was the last,
 * so a stream that ends on a page boundary costs no empty Query (a `LastEvaluatedKey` alone would ask
 * again). A range that starts inside a commit (its first Query finds no commit starting at `fromVersion`)
 * reads that commit with one more Query; one that ends inside a commit returns just its versions.
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
  let first = true;
  while (from <= range.toVersion) {
    const page = await queryCommits(documents, table, codec, streamId, { fromVersion: from, toVersion: range.toVersion }, reading);
    const items = page.Items ?? [];
    if (first && from > 1 && !reading.afterCommitEnd && (items[0] === undefined || commitFirstVersionOf(codec, items[0]) > from)) {
      const holding = await readCommitHolding(documents, table, codec, streamId, from, reading.consistent, 'whole');
      await loadKeysOf(codec.personal, [holding?.item]);
      if (holding?.item !== undefined) yield* fromCommitItem(codec, holding.item, { fromVersion: from, toVersion: range.toVersion });
    }
    // The page's subjects' keys, in one read, before any of its events is decoded.
    await loadKeysOf(codec.personal, items);
    first = false;
    let end: number | undefined;
    for (const item of items.slice(0, reading.pageSize)) {
      yield* fromCommitItem(codec, item, { fromVersion: from, toVersion: range.toVersion });
      end = commitEndOf(codec, item);
    }
    // Fewer commits than asked for and no `LastEvaluatedKey`: the range is exhausted. With one, DynamoDB
    // stopped at 1 MB, and the page goes on after the last commit returned.
    const more = items.length > reading.pageSize || page.LastEvaluatedKey !== undefined;
    if (!more || end === undefined) return;
    from = end + 1;
  }
}

/** One Query of the commits that start in `range`, ascending, a page and one more at most. */
async function queryCommits(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
  range: VersionRange,
  reading: Reading,
) {
  return request('Query', table, () =>
    documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': Layout.partitionKey, '#sk': Layout.sortKey },
        ExpressionAttributeValues: {
          ':pk': partitionKeyOf(codec.streamName, streamId),
          ':from': eventSortKey(range.fromVersion),
          ':to': eventSortKey(range.toVersion),
        },
        ConsistentRead: reading.consistent,
        Limit: reading.pageSize + 1,
      }),
    ),
  );
}

/** The commit holding a version, or the last one before it: where it starts and ends, and the item when asked for. */
export interface CommitHolding {
  readonly first: number;
  readonly end: number;
  readonly item?: Record<string, unknown> | undefined;
}

/**
 * The last commit that starts at or before `version` (the one holding it, when the stream reaches that
 * far): one Query, newest first, of one item. Only its keys and count come back unless `whole` is asked
 * for; DynamoDB bills the item's size either way.
 */
export async function readCommitHolding(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
  version: number,
  consistent: boolean,
  whole?: 'whole',
): Promise<CommitHolding | undefined> {
  const page = await request('Query', table, () =>
    documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :version',
        ExpressionAttributeNames: {
          '#pk': Layout.partitionKey,
          '#sk': Layout.sortKey,
          ...(whole === undefined ? { '#count': Layout.eventCount } : {}),
        },
        ExpressionAttributeValues: {
          ':pk': partitionKeyOf(codec.streamName, streamId),
          ':first': eventSortKey(1),
          ':version': eventSortKey(version),
        },
        ...(whole === undefined ? { ProjectionExpression: '#pk, #sk, #count' } : {}),
        ScanIndexForward: false,
        ConsistentRead: consistent,
        Limit: 1,
      }),
    ),
  );
  const item = page.Items?.[0];
  if (item === undefined) return undefined;
  return { first: commitFirstVersionOf(codec, item), end: commitEndOf(codec, item), ...(whole === undefined ? {} : { item }) };
}

/**
 * A stream instance's commits newest first, each the events it holds in version order: one Query of one
 * whole item per commit (`readCommitHolding`), strongly consistent, from the one holding the head down
 * to version 1 or until the caller stops. A walk back that stops at the first commit it wants reads each
 * commit it passes once, not once per version (a commit holds up to 400 KB).
 */
export async function* readCommitsNewestFirst(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
): AsyncGenerator<StreamEvent[]> {
  for (let before = MAX_VERSION; before >= 1;) {
    const holding = await readCommitHolding(documents, table, codec, streamId, before, true, 'whole');
    if (holding?.item === undefined) return;
    await loadKeysOf(codec.personal, [holding.item]);
    yield fromCommitItem(codec, holding.item);
    before = holding.first - 1;
  }
}

/**
 * The stream instance's latest version (0 for a stream with no events), read strongly consistent from the
 * latest commit's sort key and count (all it projects).
 */
export async function readHead(documents: DynamoDBDocumentClient, table: string, codec: EventCodec, streamId: string): Promise<number> {
  const page = await request('Query', table, () =>
    documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': Layout.partitionKey, '#sk': Layout.sortKey, '#count': Layout.eventCount },
        ExpressionAttributeValues: { ':pk': partitionKeyOf(codec.streamName, streamId), ':prefix': Layout.eventPrefix },
        ProjectionExpression: '#pk, #sk, #count',
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: 1,
      }),
    ),
  );
  const latest = page.Items?.[0];
  return latest === undefined ? 0 : commitEndOf(codec, latest);
}

/** What one Query from a snapshot's key down through the newest events read. */
export interface SnapshotPage<Event = StreamEvent> {
  /** The snapshot under the name asked for, when one is saved at its key (and opens). */
  readonly snapshot: Snapshot<unknown> | undefined;
  /** A snapshot is saved at its key but sealed for a subject since forgotten: it never opens again (see `decodeSnapshot`). */
  readonly forgottenSnapshot: boolean;
  /** The newest events the Query reached after the snapshot's version, in version order. */
  readonly newest: ReadonlyArray<Event>;
  /** `newest` holds every event from this version to the head the Query saw (1 when it read them all). */
  readonly from: number;
}

/**
 * Reads a stream instance's snapshot under `name` and its newest events in ONE Query, newest first: the
 * snapshot's sort key sorts right after the events (see `Layout`), so the Query starts at the snapshot
 * and goes on down through the commits from the head, `limit` items at most (see `snapshotPageLimit`);
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
  await loadKeysOf(codec.personal, items);
  // Newest first, so the snapshot (when there is one) is the first item.
  const first = items[0];
  const stored = first !== undefined && first[Layout.sortKey] === key ? first : undefined;
  const snapshot = stored === undefined ? undefined : decodeSnapshot(codec, streamId, name, stored);
  const covered = snapshot?.version ?? 0;
  const commits: StreamEvent[][] = [];
  let lowest: number | undefined;
  for (const item of items) {
    const sortKey = item[Layout.sortKey];
    // The snapshot, and snapshots of other names, are no events.
    if (typeof sortKey !== 'string' || !sortKey.startsWith(Layout.eventPrefix)) continue;
    const first = versionOfSortKey(sortKey);
    if (first !== undefined) lowest = first;
    // Events the snapshot covers are not decoded: the load does not fold them, and an old one may no
    // longer decode. A broken key is decoded, to fail as every reader does.
    if (first === undefined || first + commitCountOf(codec, item) - 1 > covered) {
      commits.push(fromCommitItem(codec, item, { fromVersion: covered + 1, toVersion: MAX_VERSION }));
    }
  }
  const newest = commits.reverse().flat();
  // Without a LastEvaluatedKey the Query read every commit; otherwise those from the lowest it reached.
  const reached = page.LastEvaluatedKey === undefined ? 1 : (lowest ?? MAX_VERSION + 1);
  return { snapshot, forgottenSnapshot: stored !== undefined && snapshot === undefined, newest, from: Math.max(reached, covered + 1) };
}
