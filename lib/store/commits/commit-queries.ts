import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { VersionRange } from '../codec';
import { Layout, eventSortKey } from '../layout';

/*
 * The Queries that read a stream instance's commits, as inputs: the commit layer (`CommitLog`) sends them.
 * Every one names the partition and a range of sort keys; those of the commits (`e#<version>`) sort by
 * version, snapshots right after them (see `Layout`).
 */

const keyNames = { '#pk': Layout.partitionKey, '#sk': Layout.sortKey };

/** The commits that start in `range`, ascending, `limit` at most. */
export function commitsQuery(
  table: string,
  partitionKey: string,
  range: VersionRange,
  reading: { readonly consistent: boolean; readonly limit: number },
): QueryCommandInput {
  return {
    TableName: table,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
    ExpressionAttributeNames: keyNames,
    ExpressionAttributeValues: { ':pk': partitionKey, ':from': eventSortKey(range.fromVersion), ':to': eventSortKey(range.toVersion) },
    ConsistentRead: reading.consistent,
    Limit: reading.limit,
  };
}

/**
 * The last commit that starts at or before `version`: newest first, one item. Only its keys and count come
 * back unless `whole` is asked for; DynamoDB bills the item's size either way.
 */
export function commitHoldingQuery(table: string, partitionKey: string, version: number, consistent: boolean, whole: boolean): QueryCommandInput {
  return {
    TableName: table,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :version',
    ExpressionAttributeNames: { ...keyNames, ...(whole ? {} : { '#count': Layout.eventCount }) },
    ExpressionAttributeValues: { ':pk': partitionKey, ':first': eventSortKey(1), ':version': eventSortKey(version) },
    ...(whole ? {} : { ProjectionExpression: '#pk, #sk, #count' }),
    ScanIndexForward: false,
    ConsistentRead: consistent,
    Limit: 1,
  };
}

/** The latest commit's keys and count, strongly consistent: where the head is. */
export function headQuery(table: string, partitionKey: string): QueryCommandInput {
  return {
    TableName: table,
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { ...keyNames, '#count': Layout.eventCount },
    ExpressionAttributeValues: { ':pk': partitionKey, ':prefix': Layout.eventPrefix },
    ProjectionExpression: '#pk, #sk, #count',
    ScanIndexForward: false,
    ConsistentRead: true,
    Limit: 1,
  };
}

/**
 * The snapshot at `snapshotSortKey` and the commits from the head down, newest first, `limit` items at
 * most: the snapshot's key sorts right after the commits, so one Query reads both (snapshots of other
 * names that sort before it come too, and are passed over).
 */
export function snapshotPageQuery(
  table: string,
  partitionKey: string,
  snapshotSortKey: string,
  reading: { readonly consistent: boolean; readonly limit: number },
): QueryCommandInput {
  return {
    TableName: table,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :snapshot',
    ExpressionAttributeNames: keyNames,
    ExpressionAttributeValues: { ':pk': partitionKey, ':first': eventSortKey(1), ':snapshot': snapshotSortKey },
    ScanIndexForward: false,
    ConsistentRead: reading.consistent,
    Limit: reading.limit,
  };
}
