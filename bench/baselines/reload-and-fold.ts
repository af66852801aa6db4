import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { evolveSummary, initialSummary, type Summary } from '../support/orders';
import { decodeRecord, eventsOfCommit, isConditionFailure, type RawEvent, type ViewRows } from './view-rows';

/**
 * The reload-and-fold projector: per batch and affected stream, read ALL its events (strongly consistent,
 * paged), fold them from scratch, and put the view only if its version is higher. Duplicates and stale
 * writes become no-ops; order of delivery does not matter; the cost grows with the stream.
 */
export class ReloadAndFold {
  constructor(
    private readonly rows: ViewRows,
    private readonly eventsTable: string,
  ) {}

  async handle(records: ReadonlyArray<DynamoDBRecord | _Record>): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> {
    const firstRecord = new Map<string, string>();
    for (const record of records) {
      const [event] = decodeRecord(record);
      if (event !== undefined && !firstRecord.has(event.streamId)) firstRecord.set(event.streamId, record.dynamodb?.SequenceNumber ?? '');
    }
    const failures: string[] = [];
    await Promise.all(
      [...firstRecord].map(async ([orderId, sequence]) => {
        try {
          const events = await this.loadAll(orderId);
          const state = events.reduce<Summary>((s, e) => evolveSummary(s, e), initialSummary(orderId));
          await this.upsert(state);
        } catch {
          failures.push(sequence);
        }
      }),
    );
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  }

  private async loadAll(orderId: string): Promise<RawEvent[]> {
    const events: RawEvent[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.rows.documents.send(
        new QueryCommand({
          TableName: this.eventsTable,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)',
          ExpressionAttributeValues: { ':pk': `Order#${orderId}`, ':e': 'e#' },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) events.push(...eventsOfCommit(item));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return events;
  }

  private async upsert(state: Summary): Promise<void> {
    try {
      await this.rows.documents.send(
        new PutCommand({
          TableName: this.rows.table,
          Item: this.rows.item(state),
          ConditionExpression: 'attribute_not_exists(#v) OR #v < :v',
          ExpressionAttributeNames: { '#v': 'version' },
          ExpressionAttributeValues: { ':v': state.version },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error; // the view is already at or past this version
    }
  }
}
