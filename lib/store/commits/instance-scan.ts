import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { request, withSignal } from '../../dynamo';
import { eventSortKey, Layout, streamIdOfPartitionKey } from '../layout';

/** A stream instance as a listing finds it. */
export interface InstanceRef {
  readonly streamName: string;
  readonly streamId: string;
}

/** One page of a segment's scan: the instances it found and where the next page starts. */
export interface InstancePage {
  readonly instances: ReadonlyArray<InstanceRef>;
  /** The scan's `LastEvaluatedKey`; `undefined` when the segment is done. */
  readonly next: Record<string, unknown> | undefined;
  /** Items DynamoDB read for the page (before the filter), which is what the page cost. */
  readonly scanned: number;
}

/** Where one segment of a parallel Scan of an events table starts, and what it looks for. */
export interface InstanceSegment {
  /** The streams whose instances to list (one scan serves every stream sharing the table). */
  readonly streamNames: ReadonlyArray<string>;
  readonly segment: number;
  readonly segments: number;
  /** Resume after this key (a page's `next`). */
  readonly startKey?: Record<string, unknown> | undefined;
  /** Items read per page (before the filter); DynamoDB's 1 MB when absent. */
  readonly pageSize?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A segment of a Scan of the events table `table`, sent with `documents`. */
export interface InstanceScan extends InstanceSegment {
  readonly documents: DynamoDBDocumentClient;
  readonly table: string;
}

/**
 * The instances of one segment of a parallel Scan, a page at a time (the commit layer's Scan: see
 * `CommitLog.instancePages`). Every instance has exactly one
 * event at version 1, so filtering on that sort key lists each once; only the partition key comes back.
 * The Scan still reads (and is billed for) every item of the segment: see the README's cost figures.
 */
export async function* instancePages(scan: InstanceScan): AsyncGenerator<InstancePage> {
  const names: Record<string, string> = { '#pk': Layout.partitionKey, '#sk': Layout.sortKey, '#stream': Layout.eventMarker };
  const values: Record<string, unknown> = { ':first': eventSortKey(1) };
  scan.streamNames.forEach((name, index) => (values[`:s${index}`] = name));
  const streams = scan.streamNames.map((_name, index) => `:s${index}`).join(', ');
  let start = scan.startKey;
  do {
    const page = await request('Scan', scan.table, () =>
      withSignal(scan.documents, scan.signal).send(
        new ScanCommand({
          TableName: scan.table,
          Segment: scan.segment,
          TotalSegments: scan.segments,
          FilterExpression: `#sk = :first AND #stream IN (${streams})`,
          ProjectionExpression: '#pk, #stream',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ExclusiveStartKey: start,
          ...(scan.pageSize === undefined ? {} : { Limit: scan.pageSize }),
        }),
      ),
    );
    const instances = (page.Items ?? []).flatMap((item) => {
      const streamName = String(item[Layout.eventMarker]);
      const streamId = streamIdOfPartitionKey(streamName, item[Layout.partitionKey]);
      // An item marked with a stream name its key does not start with is none of that stream's events.
      return streamId === undefined ? [] : [{ streamName, streamId }];
    });
    start = page.LastEvaluatedKey;
    yield { instances, next: start, scanned: page.ScannedCount ?? 0 };
  } while (start !== undefined);
}
