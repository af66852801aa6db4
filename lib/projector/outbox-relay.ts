import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, QueryCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { ConfigurationError } from '../errors';
import { documentClient } from '../store/document-client';
import { request } from '../store/request';
import { BatchResponse, type PartialBatchResponse } from './batch-response';
import { OutboxLayout, type OutboxMessage } from './outbox';
import type { RecordReading, StreamRecordLike } from './records';

/** Options of {@link OutboxRelay}. */
export interface OutboxRelayOptions {
  readonly client: DynamoDBClient;
  /** The outbox table. */
  readonly table: string;
  /** Publishes one message; a throw stops that row's messages (they are retried in order later). */
  readonly publish: (message: OutboxMessage) => Promise<void>;
  /** Rows drained at once. @defaultValue 10 */
  readonly concurrency?: number;
}

/** What a relay pass did. */
export interface RelayResult {
  readonly published: number;
  /** Rows whose publishing failed, with the error; their messages stay for the next pass. */
  readonly failures: ReadonlyArray<{ readonly partition: string; readonly error: unknown }>;
}

/**
 * Publishes a projection's outbox: per row, in the order the row applied them, at least once. A row's
 * messages are read in order from its partition, each published and then deleted; a message is never
 * deleted before `publish` succeeded, so a crash republishes it, with the same `id` to deduplicate on.
 * Run one relay per outbox stream shard (a Lambda event source mapping does that), so a row is drained by
 * one relay at a time.
 *
 * @example
 * ```ts
 * const relay = new OutboxRelay({ client, table: 'outbox', publish: (m) => bus.send(m.id, m.message) })
 * export const handler = async (event) => (await relay.processBatch(event.Records)).response
 * ```
 */
export class OutboxRelay {
  private readonly documents: DynamoDBDocumentClient;
  private readonly concurrency: number;

  constructor(private readonly options: OutboxRelayOptions) {
    if (typeof options.table !== 'string' || options.table.length < 3) throw new ConfigurationError('Expected `table` to be the outbox table name.');
    if (typeof options.publish !== 'function') throw new ConfigurationError('Expected `publish` to be a function.');
    this.concurrency = options.concurrency ?? 10;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new ConfigurationError('Expected `concurrency` to be a positive integer.');
    this.documents = documentClient(options.client);
  }

  /**
   * Relays the rows named by outbox stream records (from Lambda, a Pipe or the change feed): every row with
   * a message INSERT in the batch is drained. The response fails the earliest record of each row that
   * could not be drained, so the source retries it.
   */
  async processBatch<R = StreamRecordLike>(records: ReadonlyArray<R>, reading: RecordReading<R> = {}): Promise<RelayResult & { response: PartialBatchResponse }> {
    const partitions = new Map<string, number>();
    records.forEach((record, position) => {
      const partition = outboxPartition(record as StreamRecordLike);
      if (partition !== undefined && !partitions.has(partition)) partitions.set(partition, position);
    });
    const result = await this.drainPartitions([...partitions.keys()]);
    const response = new BatchResponse(records, reading);
    for (const failure of result.failures) response.fail(partitions.get(failure.partition) as number);
    return { ...result, response: response.build() };
  }

  /** Drains every row with pending messages (a Scan): recovery without the outbox's stream. */
  async drainAll(): Promise<RelayResult> {
    const partitions = new Set<string>();
    let start: Record<string, unknown> | undefined;
    do {
      const page = await request('Scan', () =>
        this.documents.send(
          new ScanCommand({ TableName: this.options.table, ConsistentRead: true, ProjectionExpression: '#pk, #m', ExpressionAttributeNames: { '#pk': OutboxLayout.partitionKey, '#m': OutboxLayout.marker }, ExclusiveStartKey: start }),
        ),
      );
      for (const item of page.Items ?? []) if (item[OutboxLayout.marker] !== undefined) partitions.add(String(item[OutboxLayout.partitionKey]));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return this.drainPartitions([...partitions]);
  }

  private async drainPartitions(partitions: ReadonlyArray<string>): Promise<RelayResult> {
    const limit = pLimit(this.concurrency);
    const results = await Promise.all(
      partitions.map((partition) =>
        limit(async () => {
          try {
            return { published: await this.drainRow(partition) };
          } catch (error) {
            return { published: 0, failure: { partition, error } };
          }
        }),
      ),
    );
    return {
      published: results.reduce((sum, result) => sum + result.published, 0),
      failures: results.flatMap((result) => (result.failure === undefined ? [] : [result.failure])),
    };
  }

  /** Publishes one row's pending messages in order, deleting each after it was published. */
  async drainRow(partition: string): Promise<number> {
    let published = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await request('Query', () =>
        this.documents.send(
          new QueryCommand({
            TableName: this.options.table,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': OutboxLayout.partitionKey },
            ExpressionAttributeValues: { ':pk': partition },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        ),
      );
      for (const item of page.Items ?? []) {
        await this.options.publish({
          id: String(item['id']),
          projection: String(item[OutboxLayout.marker]),
          key: item['key'] as Record<string, unknown>,
          message: item['message'],
          createdAt: String(item['createdAt']),
        });
        await request('DeleteItem', () =>
          this.documents.send(
            new DeleteCommand({ TableName: this.options.table, Key: { [OutboxLayout.partitionKey]: item[OutboxLayout.partitionKey], [OutboxLayout.sortKey]: item[OutboxLayout.sortKey] } }),
          ),
        );
        published++;
      }
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return published;
  }
}

/** The row partition an outbox INSERT record names, or `undefined` for anything else. */
function outboxPartition(record: StreamRecordLike): string | undefined {
  if (record?.eventName !== 'INSERT') return undefined;
  const image = record.dynamodb?.NewImage as Record<string, { S?: unknown }> | undefined;
  const marker = image?.[OutboxLayout.marker]?.S;
  const partition = image?.[OutboxLayout.partitionKey]?.S;
  return typeof marker === 'string' && typeof partition === 'string' ? partition : undefined;
}
