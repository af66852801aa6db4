import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type AttributeValue,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type UpdateTimeToLiveCommandInput,
} from '@aws-sdk/client-dynamodb';
import { CheckpointTable, isConditionFailure, tableFailure } from '../../dynamo';
import { CheckpointStoreError } from '../../errors';
import { renamedOption, requireNumber, requireTableName, resolveTtl, warnDeprecated, type Logger, type Ttl } from '../../util';
import type { CheckpointStore, FeedKey, LeaseRecord, LeaseRequest, LeaseResult, ShardCheckpoint } from './checkpoint-store';

/**
 * Options of a {@link DynamoCheckpointStore}.
 *
 * @example
 * ```ts
 * new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtl: { durationMs: 72 * 3_600_000 } })
 * ```
 */
export interface DynamoCheckpointStoreOptions {
  readonly client: DynamoDBClient;
  /** The checkpoint table (see {@link DynamoCheckpointStore.tableDefinition}). */
  readonly table: string;
  /**
   * How long a finished shard's checkpoint is kept (on the table's TTL attribute, `ttl`); at least 28
   * hours. @defaultValue 48 hours ({@link DynamoCheckpointStoreDefaults.finishedTtl})
   */
  readonly finishedTtl?: Pick<Ttl, 'durationMs'> | undefined;
  /** @deprecated use `finishedTtl: { durationMs }`; goes in the next minor version. */
  readonly finishedTtlMs?: number | undefined;
  /** Receives the store's deprecation warnings. @defaultValue one JSON line through `console.warn` */
  readonly logger?: Logger | undefined;
}

/**
 * Defaults and limits of {@link DynamoCheckpointStore}, in one place.
 *
 * @example
 * ```ts
 * new DynamoCheckpointStore({ client, table, finishedTtl: { durationMs: DynamoCheckpointStoreDefaults.finishedTtl.durationMs * 2 } })
 * ```
 */
export const DynamoCheckpointStoreDefaults = {
  finishedTtl: { durationMs: 48 * 3_600_000 },
  /** @deprecated use `finishedTtl.durationMs`; goes in the next minor version. */
  get finishedTtlMs(): number {
    warnDeprecated(undefined, 'DynamoCheckpointStoreDefaults.finishedTtlMs', 'DynamoCheckpointStoreDefaults.finishedTtl.durationMs');
    return DynamoCheckpointStoreDefaults.finishedTtl.durationMs;
  },
} as const;

/** What {@link DynamoCheckpointStore} allows, apart from the defaults. */
export const DynamoCheckpointStoreLimits = {
  // 24 hours of retention plus a shard's ~4-hour lifetime: a finished checkpoint must outlive the
  // shards that depend on it, or a restart reports records lost that were not.
  minFinishedTtlMs: 28 * 3_600_000,
} as const;

type Item = Record<string, AttributeValue>;

const SHARD_PREFIX = 'shard#';
const LEASE_SK = 'lease';

/**
 * Keeps checkpoints and the lease in a DynamoDB table: pk `<consumer>#<streamArn>`; sk `shard#<shardId>`
 * with `sequenceNumber` (S) or `finished` (BOOL), `updatedAt` (N) and, for finished shards, `ttl` (N,
 * epoch seconds); sk `lease` with `owner` (S) and `expiresAt` (N, epoch ms). Lease writes are
 * conditional. Failures reject with `CheckpointStoreError`, the SDK error kept as `cause` (a missing or refused table with
 * `TableNotFoundError` or `AccessDeniedError`).
 *
 * @example
 * ```ts
 * await client.send(new CreateTableCommand(DynamoCheckpointStore.tableDefinition('checkpoints')))
 * const checkpoints = new DynamoCheckpointStore({ client, table: 'checkpoints' })
 * ```
 */
export class DynamoCheckpointStore implements CheckpointStore {
  private readonly client: DynamoDBClient;
  private readonly table: string;
  private readonly finishedTtlMs: number;

  /** Throws `ConfigurationError` for a missing table or a `finishedTtl` under 28 hours. */
  constructor(options: DynamoCheckpointStoreOptions) {
    const where = 'DynamoCheckpointStore';
    this.table = requireTableName('table', options.table, where);
    const minimum = {
      minMs: DynamoCheckpointStoreLimits.minFinishedTtlMs,
      minLabel: `28 hours (${DynamoCheckpointStoreLimits.minFinishedTtlMs} ms)`,
      attribute: CheckpointTable.ttlAttribute,
      attributeChoosable: false,
    };
    const finishedTtl = renamedOption(
      {
        newName: 'finishedTtl',
        newValue: options.finishedTtl,
        oldName: 'finishedTtlMs',
        oldValue: options.finishedTtlMs,
        replacement: 'finishedTtl: { durationMs }',
        // Checked under the name it was given.
        map: (durationMs: number) => ({
          durationMs: requireNumber('finishedTtlMs', durationMs, minimum.minMs, { minLabel: minimum.minLabel, where }),
        }),
      },
      options.logger,
      where,
    );
    // A finished shard's checkpoint must outlive the 24-hour retention plus a shard's lifetime.
    this.finishedTtlMs = resolveTtl('finishedTtl', finishedTtl ?? DynamoCheckpointStoreDefaults.finishedTtl, minimum, where).durationMs;
    this.client = options.client;
  }

  /**
   * The checkpoint table's CreateTable input: pk (S, HASH) + sk (S, RANGE), on-demand billing.
   *
   * @example
   * ```ts
   * await client.send(new CreateTableCommand(DynamoCheckpointStore.tableDefinition('checkpoints')))
   * ```
   */
  static tableDefinition(name: string): CreateTableCommandInput {
    return CheckpointTable.definition(name);
  }

  /**
   * The UpdateTimeToLive input that lets finished shards' checkpoints expire on `ttl`.
   *
   * @example
   * ```ts
   * await client.send(new UpdateTimeToLiveCommand(DynamoCheckpointStore.timeToLiveDefinition('checkpoints')))
   * ```
   */
  static timeToLiveDefinition(name: string): UpdateTimeToLiveCommandInput {
    return { TableName: name, TimeToLiveSpecification: { Enabled: true, AttributeName: CheckpointTable.ttlAttribute } };
  }

  async getCheckpoints(key: FeedKey): Promise<ReadonlyMap<string, ShardCheckpoint>> {
    const checkpoints = new Map<string, ShardCheckpoint>();
    for (const item of await this.shardItems(key, 'read the checkpoints')) {
      const shardId = item['sk']?.S?.slice(SHARD_PREFIX.length);
      if (shardId === undefined) continue;
      if (item['finished']?.BOOL === true) checkpoints.set(shardId, { kind: 'finished' });
      else if (item['sequenceNumber']?.S !== undefined) checkpoints.set(shardId, { kind: 'sequence', sequenceNumber: item['sequenceNumber'].S });
    }
    return checkpoints;
  }

  async putCheckpoint(key: FeedKey, shardId: string, sequenceNumber: string): Promise<void> {
    const item: Item = { ...this.shardKey(key, shardId), sequenceNumber: { S: sequenceNumber }, updatedAt: { N: String(Date.now()) } };
    await this.send('PutItem', `checkpoint shard ${shardId}`, () => this.client.send(new PutItemCommand({ TableName: this.table, Item: item })));
  }

  async putFinished(key: FeedKey, shardId: string): Promise<void> {
    const now = Date.now();
    const item: Item = {
      ...this.shardKey(key, shardId),
      finished: { BOOL: true },
      updatedAt: { N: String(now) },
      [CheckpointTable.ttlAttribute]: { N: String(Math.ceil((now + this.finishedTtlMs) / 1000)) },
    };
    await this.send('PutItem', `checkpoint shard ${shardId} as finished`, () =>
      this.client.send(new PutItemCommand({ TableName: this.table, Item: item })),
    );
  }

  async clearCheckpoints(key: FeedKey): Promise<void> {
    const keys = (await this.shardItems(key, 'clear the checkpoints')).map((item) => ({ pk: item['pk'] ?? { S: '' }, sk: item['sk'] ?? { S: '' } }));
    for (let start = 0; start < keys.length; start += 25) {
      let requests: NonNullable<ConstructorParameters<typeof BatchWriteItemCommand>[0]['RequestItems']> = {
        [this.table]: keys.slice(start, start + 25).map((Key) => ({ DeleteRequest: { Key } })),
      };
      while (Object.keys(requests).length > 0) {
        const answer = await this.send('BatchWriteItem', 'clear the checkpoints', () =>
          this.client.send(new BatchWriteItemCommand({ RequestItems: requests })),
        );
        requests = answer.UnprocessedItems ?? {};
      }
    }
  }

  async acquireLease(key: FeedKey, request: LeaseRequest): Promise<LeaseResult> {
    const expiresAt = request.now + request.durationMs;
    const put = new PutItemCommand({
      TableName: this.table,
      Item: { ...this.leaseKey(key), owner: { S: request.owner }, expiresAt: { N: String(expiresAt) }, updatedAt: { N: String(request.now) } },
      ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt <= :now OR #owner = :owner',
      ExpressionAttributeNames: { '#expiresAt': 'expiresAt', '#owner': 'owner' },
      ExpressionAttributeValues: { ':now': { N: String(request.now) }, ':owner': { S: request.owner } },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return this.conditionalLeaseWrite(key, 'PutItem', 'take the lease', expiresAt, () => this.client.send(put));
  }

  async renewLease(key: FeedKey, request: LeaseRequest): Promise<LeaseResult> {
    const expiresAt = request.now + request.durationMs;
    const update = new UpdateItemCommand({
      TableName: this.table,
      Key: this.leaseKey(key),
      UpdateExpression: 'SET #expiresAt = :expiresAt, #updatedAt = :now',
      ConditionExpression: '#owner = :owner',
      ExpressionAttributeNames: { '#expiresAt': 'expiresAt', '#owner': 'owner', '#updatedAt': 'updatedAt' },
      ExpressionAttributeValues: { ':expiresAt': { N: String(expiresAt) }, ':now': { N: String(request.now) }, ':owner': { S: request.owner } },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return this.conditionalLeaseWrite(key, 'UpdateItem', 'renew the lease', expiresAt, () => this.client.send(update));
  }

  async releaseLease(key: FeedKey, owner: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.table,
          Key: this.leaseKey(key),
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': { S: owner } },
        }),
      );
    } catch (error) {
      // Someone else's lease (or none) is left alone: that is what releasing only our own means.
      if (isConditionFailure(error)) return;
      throw this.failure('DeleteItem', 'release the lease', error);
    }
  }

  async getLease(key: FeedKey): Promise<LeaseRecord | undefined> {
    const answer = await this.send('GetItem', 'read the lease', () =>
      this.client.send(new GetItemCommand({ TableName: this.table, Key: this.leaseKey(key), ConsistentRead: true })),
    );
    return toLease(answer.Item);
  }

  private async conditionalLeaseWrite(
    key: FeedKey,
    operation: string,
    action: string,
    expiresAt: number,
    write: () => Promise<unknown>,
  ): Promise<LeaseResult> {
    try {
      await write();
      return { acquired: true, expiresAt };
    } catch (error) {
      if (!isConditionFailure(error)) throw this.failure(operation, action, error);
      const old = (error as { Item?: Item | undefined }).Item;
      return { acquired: false, holder: old === undefined ? await this.getLease(key) : toLease(old) };
    }
  }

  private async shardItems(key: FeedKey, action: string): Promise<Item[]> {
    const items: Item[] = [];
    let exclusiveStartKey: Item | undefined;
    do {
      const page = await this.send('Query', action, () =>
        this.client.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': { S: partition(key) }, ':prefix': { S: SHARD_PREFIX } },
            ConsistentRead: true,
            ExclusiveStartKey: exclusiveStartKey,
          }),
        ),
      );
      items.push(...(page.Items ?? []));
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey !== undefined);
    return items;
  }

  private async send<T>(operation: string, action: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.failure(operation, action, error);
    }
  }

  /** A missing or refused table as the error naming it; any other failure as a `CheckpointStoreError`. */
  private failure(operation: string, action: string, error: unknown): Error {
    return tableFailure(operation, this.table, error) ?? new CheckpointStoreError(`Could not ${action} in table ${this.table}`, { cause: error });
  }

  private shardKey(key: FeedKey, shardId: string): Item {
    return { pk: { S: partition(key) }, sk: { S: `${SHARD_PREFIX}${shardId}` } };
  }

  private leaseKey(key: FeedKey): Item {
    return { pk: { S: partition(key) }, sk: { S: LEASE_SK } };
  }
}

function partition(key: FeedKey): string {
  return `${key.consumer}#${key.streamArn}`;
}

function toLease(item: Item | undefined): LeaseRecord | undefined {
  const owner = item?.['owner']?.S;
  const expiresAt = item?.['expiresAt']?.N;
  return owner === undefined || expiresAt === undefined ? undefined : { owner, expiresAt: Number(expiresAt) };
}
