import { PutCommand, QueryCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { evolveSummary, initialSummary } from '../support/orders';
import { eventsOfCommit, type ViewRows } from './view-rows';

/**
 * The least a backfill sends, written by hand: a parallel Scan listing each order once (its first event,
 * the partition key only), one strongly consistent Query of its events, one conditional Put of its row;
 * `concurrency` orders in flight across segments, each page finished before the next (as dynafold does,
 * to save progress). No progress is kept, nothing is validated. Resolves the orders written.
 */
export async function handBackfill(
  documents: DynamoDBDocumentClient,
  eventsTable: string,
  rows: ViewRows,
  options: { readonly segments: number; readonly concurrency: number },
): Promise<number> {
  const limit = pLimit(options.concurrency);
  let written = 0;
  const backfillOrder = async (partition: string) => {
    const orderId = partition.slice('Order#'.length);
    let state = initialSummary(orderId);
    let start: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(
        new QueryCommand({
          TableName: eventsTable,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :events)',
          ExpressionAttributeValues: { ':pk': partition, ':events': 'e#' },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) for (const event of eventsOfCommit(item)) state = evolveSummary(state, event);
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    await documents.send(new PutCommand({ TableName: rows.table, Item: rows.item(state), ConditionExpression: 'attribute_not_exists(pk)' }));
    written++;
  };
  await Promise.all(
    Array.from({ length: options.segments }, async (_unused, segment) => {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await documents.send(
          new ScanCommand({
            TableName: eventsTable,
            Segment: segment,
            TotalSegments: options.segments,
            FilterExpression: 'sk = :first AND #stream = :order',
            ProjectionExpression: 'pk',
            ExpressionAttributeNames: { '#stream': '_df' },
            ExpressionAttributeValues: { ':first': 'e#0000000001', ':order': 'Order' },
            ExclusiveStartKey: start,
          }),
        );
        await Promise.all((page.Items ?? []).map((item) => limit(() => backfillOrder(String(item['pk'])))));
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
    }),
  );
  return written;
}
