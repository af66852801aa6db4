import { BatchGetCommand, PutCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { chunks } from '../support/stats';
import { evolveSummary, type Summary } from '../support/orders';
import type { RawEvent, ViewRows } from './view-rows';

/**
 * The least a correct projector sends for a batch whose events are contiguous to each row's checkpoint:
 * the rows in BatchGetItem requests of up to 100 keys (strongly consistent), then one conditional write
 * per row, 10 in flight (the projector's default concurrency). No event reads: the batch holds every gap.
 */
export async function floorRequests(rows: ViewRows, eventsByRow: ReadonlyMap<string, ReadonlyArray<RawEvent>>): Promise<void> {
  const ids = [...eventsByRow.keys()];
  const found = new Map<string, Summary & { createdAt?: string }>();
  for (const part of chunks(ids, 100)) {
    let keys: Record<string, unknown>[] | undefined = part.map((id) => rows.key(id));
    while (keys !== undefined && keys.length > 0) {
      const page: BatchGetCommandOutput = await rows.documents.send(
        new BatchGetCommand({ RequestItems: { [rows.table]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of page.Responses?.[rows.table] ?? []) found.set(String(item['orderId']), item as Summary);
      keys = page.UnprocessedKeys?.[rows.table]?.Keys;
    }
  }
  const limit = pLimit(10);
  await Promise.all(
    ids.map((id) =>
      limit(async () => {
        const row = found.get(id);
        if (row === undefined) throw new Error(`floor: no row ${id}`);
        const events = [...(eventsByRow.get(id) ?? [])].sort((a, b) => a.version - b.version).filter((e) => e.version > row.version);
        const state = events.reduce<Summary>((s, e) => evolveSummary(s, e), row);
        await rows.documents.send(
          new PutCommand({
            TableName: rows.table,
            Item: rows.item(state, row.createdAt),
            ConditionExpression: '#v = :v',
            ExpressionAttributeNames: { '#v': 'version' },
            ExpressionAttributeValues: { ':v': row.version },
          }),
        );
      }),
    ),
  );
}
