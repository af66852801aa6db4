import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { evolveSummary, initialSummary } from '../support/orders';
import { decodeRecord, isConditionFailure, type RawEvent, type ViewRows } from './view-rows';

export interface ReadModifyWriteOptions {
  /** How many times a record whose predecessor is not applied yet waits and re-reads the row. */
  readonly waits: number;
  readonly waitMs: number;
}

export const ReadModifyWriteDefaults: ReadModifyWriteOptions = { waits: 3, waitMs: 25 };

/**
 * The incremental projector most handlers start as: per record, in batch order, read the row; a duplicate
 * is skipped; the next version is applied and written conditioned on the version read; a record whose
 * predecessor is not applied yet waits and re-reads (bounded), then fails so the source retries it.
 */
export class ReadModifyWrite {
  stalls = 0;
  private readonly options: ReadModifyWriteOptions;

  constructor(
    private readonly rows: ViewRows,
    options: Partial<ReadModifyWriteOptions> = {},
  ) {
    this.options = { ...ReadModifyWriteDefaults, ...options };
  }

  async handle(records: ReadonlyArray<DynamoDBRecord | _Record>): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> {
    const failures: string[] = [];
    for (const record of records) {
      try {
        for (const event of decodeRecord(record)) await this.apply(event);
      } catch {
        failures.push(record.dynamodb?.SequenceNumber ?? '');
      }
    }
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  }

  private async apply(event: RawEvent): Promise<void> {
    for (let waited = 0; ;) {
      const row = await this.rows.get(event.streamId);
      const version = row?.version ?? 0;
      if (event.version <= version) return; // a duplicate
      if (event.version > version + 1) {
        if (waited++ >= this.options.waits) throw new Error(`version ${event.version - 1} of ${event.streamId} is not applied yet`);
        this.stalls++;
        await new Promise((resolve) => setTimeout(resolve, this.options.waitMs));
        continue;
      }
      const state = evolveSummary(row ?? initialSummary(event.streamId), event);
      try {
        await this.rows.documents.send(
          new PutCommand({
            TableName: this.rows.table,
            Item: this.rows.item(state, row?.createdAt),
            ...(row === undefined
              ? { ConditionExpression: 'attribute_not_exists(pk)' }
              : { ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': version } }),
          }),
        );
        return;
      } catch (error) {
        if (!isConditionFailure(error)) throw error; // another lane wrote the row: read it again
      }
    }
  }
}
