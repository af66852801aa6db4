import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { fromEventItem, type EventCodec } from './event-codec';
import { eventVersionOf } from './event-item-keys';
import { Layout, eventSortKey, partitionKeyOf } from './layout';
import { request } from '../dynamo';
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
