import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { fromEventItem, type EventCodec } from './event-codec';
import { Layout, eventSortKey, partitionKeyOf } from './layout';
import { pages, request } from '../dynamo';
import type { StreamEvent } from './types';

/** A version range of one stream instance, inclusive at both ends. */
export interface VersionRange {
  readonly fromVersion: number;
  readonly toVersion: number;
}

/**
 * Pages through a stream instance's events in version order with strongly consistent Queries, one page
 * at a time, so a stream of any length is read in bounded memory.
 */
export async function* readEvents(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
  range: VersionRange,
  pageSize: number,
): AsyncGenerator<StreamEvent> {
  if (range.toVersion < range.fromVersion) return;
  const query = pages('Query', table, (exclusiveStartKey) =>
    documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': Layout.partitionKey, '#sk': Layout.sortKey },
        ExpressionAttributeValues: {
          ':pk': partitionKeyOf(codec.streamName, streamId),
          ':from': eventSortKey(Math.max(1, range.fromVersion)),
          ':to': eventSortKey(range.toVersion),
        },
        ConsistentRead: true,
        Limit: pageSize,
        ExclusiveStartKey: exclusiveStartKey,
      }),
    ),
  );
  for await (const items of query) for (const item of items) yield fromEventItem(codec, item);
}

/** The stream instance's latest version (0 for a stream with no events), read strongly consistent. */
export async function readHead(documents: DynamoDBDocumentClient, table: string, codec: EventCodec, streamId: string): Promise<number> {
  const page = await request('Query', table, () =>
    documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': Layout.partitionKey, '#sk': Layout.sortKey, '#version': 'version' },
        ExpressionAttributeValues: { ':pk': partitionKeyOf(codec.streamName, streamId), ':prefix': Layout.eventPrefix },
        ProjectionExpression: '#version',
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: 1,
      }),
    ),
  );
  const version = page.Items?.[0]?.['version'];
  return typeof version === 'number' ? version : 0;
}
