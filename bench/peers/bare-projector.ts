import { BatchGetCommand, PutCommand, QueryCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { decodeRecord, eventsOfCommit, isConditionFailure, type RawEvent, type ViewRows } from '../baselines/view-rows';
import { evolveSummary, initialSummary, type Summary } from '../support/orders';
import { chunks } from '../support/stats';
import type { BatchResponse, Projector } from './peer';
import { countWrong } from './verify';

type Row = Summary & { createdAt?: string };

/** How many times a row's write is tried again after another lane wrote the row first. */
const LOST_RACES = 5;
/** Rows written at once, as dynafold's default projector concurrency. */
const CONCURRENCY = 10;

/**
 * The projector of the bare-SDK peer: the requests dynafold's `processBatch` sends, by hand. The batch's rows in
 * BatchGetItem requests (strongly consistent), then per row, 10 at a time: the events between the row and
 * the batch read by one Query when the batch starts past the row, the fold, and one Put conditioned on the
 * version read; a Put another lane beat reads the row again and goes on. A row that fails reports its first
 * record and every one after it, as Lambda retries from the first reported.
 */
export function bareProjector(documents: DynamoDBDocumentClient, eventsTable: string, rows: ViewRows): Projector {
  const gap = async (orderId: string, from: number, to: number): Promise<RawEvent[]> => {
    const page = await documents.send(
      new QueryCommand({
        TableName: eventsTable,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: {
          ':pk': `Order#${orderId}`,
          ':from': `e#${String(from).padStart(10, '0')}`,
          ':to': `e#${String(to).padStart(10, '0')}`,
        },
        ConsistentRead: true,
      }),
    );
    return (page.Items ?? []).flatMap(eventsOfCommit).filter((event) => event.version <= to);
  };
  const apply = async (orderId: string, batch: ReadonlyArray<RawEvent>, found: Row | undefined): Promise<void> => {
    let row = found;
    for (let lost = 0; ; lost++) {
      const version = row?.version ?? 0;
      const pending = batch.filter((event) => event.version > version);
      const first = pending[0];
      if (first === undefined) return;
      const events = first.version > version + 1 ? [...(await gap(orderId, version + 1, first.version - 1)), ...pending] : pending;
      if (events.some((event, index) => event.version !== version + 1 + index)) throw new Error(`bare SDK: a gap in ${orderId} after ${version}`);
      const state = events.reduce<Summary>(evolveSummary, row ?? initialSummary(orderId));
      try {
        await documents.send(
          new PutCommand({
            TableName: rows.table,
            Item: rows.item(state, row?.createdAt),
            ...(row === undefined
              ? { ConditionExpression: 'attribute_not_exists(pk)' }
              : { ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': version } }),
          }),
        );
        return;
      } catch (error) {
        if (!isConditionFailure(error) || lost >= LOST_RACES) throw error;
        row = await rows.get(orderId);
      }
    }
  };
  return {
    projectsTo: 'row',
    project: async (records): Promise<BatchResponse> => {
      const byOrder = new Map<string, { first: number; events: RawEvent[] }>();
      records.forEach((record, index) => {
        for (const event of decodeRecord(record)) {
          const entry = byOrder.get(event.streamId) ?? { first: index, events: [] };
          entry.events.push(event);
          byOrder.set(event.streamId, entry);
        }
      });
      const found = new Map<string, Row>();
      for (const part of chunks([...byOrder.keys()], 100)) {
        let keys: Record<string, unknown>[] | undefined = part.map((orderId) => rows.key(orderId));
        while (keys !== undefined && keys.length > 0) {
          const page: BatchGetCommandOutput = await documents.send(
            new BatchGetCommand({ RequestItems: { [rows.table]: { Keys: keys, ConsistentRead: true } } }),
          );
          for (const item of page.Responses?.[rows.table] ?? []) found.set(String(item['orderId']), item as Row);
          keys = page.UnprocessedKeys?.[rows.table]?.Keys;
        }
      }
      const limit = pLimit(CONCURRENCY);
      const failed = await Promise.all(
        [...byOrder].map(([orderId, { first, events }]) =>
          limit(async () => {
            const sorted = [...new Map(events.map((event) => [event.version, event])).values()].sort((a, b) => a.version - b.version);
            try {
              await apply(orderId, sorted, found.get(orderId));
              return undefined;
            } catch {
              return first;
            }
          }),
        ),
      );
      const from = Math.min(...failed.filter((index): index is number => index !== undefined));
      return {
        batchItemFailures: Number.isFinite(from) ? records.slice(from).map((r) => ({ itemIdentifier: r.dynamodb?.SequenceNumber ?? '' })) : [],
      };
    },
    wrong: (expected) => countWrong(expected, (orderId) => rows.get(orderId)),
  };
}
