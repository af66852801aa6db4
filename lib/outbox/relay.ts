import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, QueryCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { log, Semaphore, requireFunction, requireInteger, requireTableName, resolveLogger, type Logger } from '../util';
import { abortReason, cancelled, documentClient, pages, request, withSignal } from '../dynamo';
import { BatchResponse, type PartialBatchResponse, type RecordReading, type StreamRecordLike } from '../lambda';
import { OutboxLayout } from '../projector';
import { sealedSubjects, storedMessage, storedMessageTrace, type OutboxMessage } from './stored-message';
import type { SubjectKeys } from '../erasure';
import { inSpan, publishSpan } from '../telemetry';

/** Options of {@link OutboxRelay}. */
export interface OutboxRelayOptions {
  readonly client: DynamoDBClient;
  /** The outbox table. */
  readonly table: string;
  /** Publishes one message; a throw stops that row's messages (they are retried in order later). */
  readonly publish: (message: OutboxMessage) => Promise<void>;
  /** Rows drained at once. @defaultValue 10 */
  readonly concurrency?: number | undefined;
  /** Receives rows whose publishing failed (warn); `false` logs nothing. @defaultValue one JSON line per entry on the console */
  readonly logger?: Logger | false | undefined;
  /**
   * The subject keys of the streams whose events the messages come from, when they hold personal data: a
   * message of such an event is sealed for its subjects, opened here before it is published, and deleted
   * unpublished (counted in `erased`) once one of them is forgotten.
   * @defaultValue none: a sealed message fails its row with `ConfigurationError`
   */
  readonly keys?: SubjectKeys | undefined;
}

/** Defaults of {@link OutboxRelay}, in one place. */
export const OutboxRelayDefaults = {
  /** Rows drained at once. */
  concurrency: 10,
} as const;

/** What a relay pass did. */
export interface RelayResult {
  readonly published: number;
  /** Messages deleted unpublished: sealed for a subject that was forgotten before they were published. */
  readonly erased: number;
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
  private readonly logger: Logger | undefined;

  constructor(private readonly options: OutboxRelayOptions) {
    requireTableName('table', options.table, 'OutboxRelay');
    requireFunction('publish', options.publish, 'OutboxRelay');
    this.concurrency = requireInteger('concurrency', options.concurrency ?? OutboxRelayDefaults.concurrency, 1, undefined, 'OutboxRelay');
    this.documents = documentClient(options.client);
    this.logger = resolveLogger(options.logger);
  }

  /**
   * Relays the rows named by outbox stream records (from Lambda, a Pipe or the change feed): every row with
   * a message INSERT in the batch is drained. The response fails the earliest record of each row that
   * could not be drained, so the source retries it.
   */
  async processBatch<R = StreamRecordLike>(
    records: ReadonlyArray<R>,
    reading: RecordReading<R> = {},
  ): Promise<RelayResult & { response: PartialBatchResponse }> {
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

  /**
   * Drains every row with pending messages (a Scan): recovery without the outbox's stream. With a `signal`,
   * no row starts once it aborts, the requests in flight are cut short, and the call rejects with its reason.
   */
  async drainAll(options: { signal?: AbortSignal | undefined } = {}): Promise<RelayResult> {
    const { signal } = options;
    const documents = withSignal(this.documents, signal);
    const partitions = new Set<string>();
    const scan = pages('Scan', this.options.table, (start) =>
      documents.send(
        new ScanCommand({
          TableName: this.options.table,
          ConsistentRead: true,
          ProjectionExpression: '#pk, #m',
          ExpressionAttributeNames: { '#pk': OutboxLayout.partitionKey, '#m': OutboxLayout.marker },
          ExclusiveStartKey: start,
        }),
      ),
    );
    for await (const items of scan)
      for (const item of items) if (item[OutboxLayout.marker] !== undefined) partitions.add(String(item[OutboxLayout.partitionKey]));
    const result = await this.drainPartitions([...partitions], documents, signal);
    if (cancelled(signal)) throw abortReason(signal);
    return result;
  }

  private async drainPartitions(partitions: ReadonlyArray<string>, documents = this.documents, signal?: AbortSignal): Promise<RelayResult> {
    const limit = new Semaphore(this.concurrency);
    const results = await Promise.all(
      partitions.map((partition) =>
        limit.use(async () => {
          try {
            if (cancelled(signal)) throw abortReason(signal);
            return await this.drainRowWith(partition, documents);
          } catch (error) {
            log(
              this.logger,
              'warn',
              { projection: projectionOf(partition), partition, err: error },
              'outbox row not drained; its messages wait for the next pass',
            );
            return { published: 0, erased: 0, failure: { partition, error } };
          }
        }),
      ),
    );
    return {
      published: results.reduce((sum, result) => sum + result.published, 0),
      erased: results.reduce((sum, result) => sum + result.erased, 0),
      failures: results.flatMap((result) => ('failure' in result ? [result.failure] : [])),
    };
  }

  /** Publishes one row's pending messages in order, deleting each after it was published. Resolves how many it published. */
  async drainRow(partition: string): Promise<number> {
    return (await this.drainRowWith(partition, this.documents)).published;
  }

  private async drainRowWith(partition: string, documents: DynamoDBDocumentClient): Promise<{ published: number; erased: number }> {
    let published = 0;
    let erased = 0;
    const messages = pages('Query', this.options.table, (start) =>
      documents.send(
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
    for await (const items of messages) {
      const subjects = sealedSubjects(items);
      if (subjects.size > 0) await this.options.keys?.load(subjects);
      for (const item of items) {
        const stored = storedMessage(item, this.options.keys);
        if (stored === 'erased') {
          erased++;
          log(this.logger, 'info', { partition, id: item['id'] }, 'outbox message deleted unpublished: a subject of its personal data was forgotten');
        } else {
          const trace = storedMessageTrace(item);
          const message: OutboxMessage = {
            id: String(item['id']),
            projection: String(item[OutboxLayout.marker]),
            key: item['key'] as Record<string, unknown>,
            message: stored.message,
            createdAt: String(item['createdAt']),
            ...(trace === undefined ? {} : { trace }),
          };
          // A span per message, linked to the append of the event it is for: `publish` runs inside it.
          await inSpan(publishSpan(this.options.table, message.projection, message.id), (span) => {
            span.link([{ ...eventOfMessage(message.id), trace }]);
            return this.options.publish(message);
          });
          published++;
        }
        await request('DeleteItem', this.options.table, () =>
          documents.send(
            new DeleteCommand({
              TableName: this.options.table,
              Key: { [OutboxLayout.partitionKey]: item[OutboxLayout.partitionKey], [OutboxLayout.sortKey]: item[OutboxLayout.sortKey] },
            }),
          ),
        );
      }
    }
    return { published, erased };
  }
}

/** The event a message id names (`<stream name>#<stream id>#<version>`; stream names hold no `#`). */
function eventOfMessage(id: string): { streamName: string; streamId: string; version: number } {
  const first = id.indexOf('#');
  const last = id.lastIndexOf('#');
  return { streamName: id.slice(0, first), streamId: id.slice(first + 1, last), version: Number(id.slice(last + 1)) };
}

/** The row partition an outbox INSERT record names, or `undefined` for anything else. */
function outboxPartition(record: StreamRecordLike): string | undefined {
  if (record?.eventName !== 'INSERT') return undefined;
  const image = record.dynamodb?.NewImage as Record<string, { S?: unknown }> | undefined;
  const marker = image?.[OutboxLayout.marker]?.S;
  const partition = image?.[OutboxLayout.partitionKey]?.S;
  return typeof marker === 'string' && typeof partition === 'string' ? partition : undefined;
}

/** The projection an outbox partition belongs to (its first member, see `OutboxWriter.partition`), for the logs. */
function projectionOf(partition: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(partition);
    return Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed[0] : undefined;
  } catch {
    return undefined;
  }
}
