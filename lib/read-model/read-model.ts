import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { ConfigurationError, DecodeError, ValidationError } from '../errors';
import { documentClient, getItem, request, withSignal } from '../dynamo';
import { RowAttributes, keyPrefix, keyValue, validateKeys, type IndexDefinition, type PrimaryKeyDefinition } from './read-model-keys';
import type { AnyKeyValues, IndexByName, IndexName, KeyValues, QueryValues } from './read-model-key-types';
import { isWellFormed, requireTableName } from '../util';
import { attributeIssues, describeDataIssues, zodIssues } from '../store';

/** Options of {@link ReadModel}. */
export interface ReadModelOptions<
  Schema extends z.ZodObject,
  Indexes extends Record<string, IndexDefinition>,
  Key extends PrimaryKeyDefinition = PrimaryKeyDefinition,
> {
  readonly client: DynamoDBClient;
  readonly table: string;
  /** The model's name; prefixes its key values, so several models can share a table. */
  readonly name: string;
  /** The row's fields (a zod object). */
  readonly schema: Schema;
  /** The row's key: the fields whose values make the partition and sort key attributes. `get` takes exactly these fields. */
  readonly key: Key;
  /** Global secondary indexes by the name `query` uses. Their key attributes are computed on every write. */
  readonly indexes?: Indexes | undefined;
  /** Fields kept for other readers that `get` and `query` leave out unless asked for. */
  readonly hidden?: ReadonlyArray<keyof z.output<Schema> & string> | undefined;
}

/** A row as read: its fields plus the timestamps dynafold keeps (and `removed` on a tombstone read with `includeRemoved`). */
export type Stored<Row> = Row & { readonly createdAt: string; readonly updatedAt: string; readonly removed?: true | undefined };

/** The key fields of a read model's rows: what `get`, `getItem` and `keyOf` take, and a projection's `key` returns. */
export type KeyOfModel<M> = M extends { readonly $types: { readonly key: infer K } } ? K : AnyKeyValues;

/** Options of {@link ReadModel.get} and {@link ReadModel.query}. */
export interface ReadOptions {
  /** Strongly consistent read (not for GSI queries, which DynamoDB refuses). @defaultValue false */
  readonly consistent?: boolean | undefined;
  /** Include hidden fields. @defaultValue false */
  readonly includeHidden?: boolean | undefined;
  /** Include tombstones of rows a projection removed (marked `removed: true`). @defaultValue false */
  readonly includeRemoved?: boolean | undefined;
  /** Cancels the read: its request is aborted and the call rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/** A page of a query. Pass `cursor` back to get the next page; `undefined` means the last page. */
export interface Page<Row> {
  readonly items: ReadonlyArray<Stored<Row>>;
  readonly cursor?: string | undefined;
}

/**
 * A read-model row type: query-shaped rows validated by a zod object, keyed by composite fields, with GSI
 * key attributes computed on every write and `createdAt` / `updatedAt` kept.
 *
 * @example
 * ```ts
 * const OrderSummaries = new ReadModel({
 *   client, table: 'views', name: 'OrderSummary',
 *   schema: z.object({ orderId: z.string(), status: z.string(), version: z.number() }),
 *   key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
 *   indexes: { byStatus: { name: 'gsi1', pk: { field: 'gsi1pk', composite: ['status'] }, sk: { field: 'gsi1sk', composite: ['orderId'] } } },
 * })
 * const page = await OrderSummaries.query('byStatus', { status: 'placed' }, { limit: 20 })
 * await OrderSummaries.get({ orderIdd: 'o-1' }) // compile error: the key is { orderId }
 * ```
 *
 * The key and index definitions are captured literally (no `as const` needed), so `get`, `keyOf` and
 * `query` take exactly their composite fields: an unknown field is a compile error.
 */
export class ReadModel<
  Schema extends z.ZodObject = z.ZodObject,
  const Indexes extends Record<string, IndexDefinition> = Record<string, IndexDefinition>,
  const Key extends PrimaryKeyDefinition = PrimaryKeyDefinition,
> {
  readonly name: string;
  readonly table: string;
  readonly schema: Schema;
  readonly key: Key;
  readonly indexes: Indexes;
  /** Type-level only (no runtime value): the row and key types, for inference. */
  declare readonly $types: { readonly row: z.output<Schema>; readonly key: KeyValues<z.output<Schema>, Key> };
  readonly hidden: ReadonlySet<string>;
  /** The DynamoDB client the model reads and writes with; projections of the model use it too. */
  readonly client: DynamoDBClient;
  private readonly documents: DynamoDBDocumentClient;

  constructor(options: ReadModelOptions<Schema, Indexes, Key>) {
    requireTableName('table', options.table, `ReadModel ${String(options.name)}`);
    if (typeof options.name !== 'string' || options.name === '' || options.name.includes('#') || !isWellFormed(options.name))
      throw new ConfigurationError('Expected `name` to be a non-empty, well-formed model name without "#".');
    if (!(options.schema instanceof z.ZodObject))
      throw new ConfigurationError(`${options.name}: expected \`schema\` to be a zod object (z.object({...})).`);
    this.name = options.name;
    this.table = options.table;
    this.schema = options.schema;
    this.key = options.key;
    this.indexes = options.indexes ?? ({} as Indexes);
    validateKeys(this.name, this.schema, this.key, this.indexes);
    const hidden = options.hidden ?? [];
    for (const field of hidden) {
      if (!Object.hasOwn(this.schema.shape, field))
        throw new ConfigurationError(`${this.name}: hidden field \`${field}\` is not a field of the schema.`);
    }
    this.hidden = new Set(hidden);
    this.client = options.client;
    this.documents = documentClient(options.client);
  }

  /** The primary key attributes of the row with these field values. */
  keyOf(values: KeyValues<z.output<Schema>, Key>): Record<string, string> {
    return this.keyAttributes(values);
  }

  private keyAttributes(values: AnyKeyValues): Record<string, string> {
    const key: Record<string, string> = { [this.key.pk.field]: keyValue(this.name, this.key.pk, values) };
    if (this.key.sk !== undefined) key[this.key.sk.field] = keyValue(this.name, this.key.sk, values, 'sort');
    return key;
  }

  /** Validates a row and builds the item as stored: fields, key and index attributes, model name and timestamps. */
  toItem(row: unknown, times: { createdAt: string; updatedAt: string }): Record<string, unknown> {
    const parsed = this.schema.safeParse(row);
    if (!parsed.success) {
      const issues = zodIssues(parsed.error);
      throw new ValidationError(
        `A ${this.name} row is invalid: ${issues.map((issue) => `${issue.path.join('.') || '(row)'}: ${issue.message}`).join('; ')}.`,
        issues,
        { cause: parsed.error },
      );
    }
    const fields = withoutUndefined(parsed.data);
    const unfit = attributeIssues(fields, [], 'item');
    if (unfit.length > 0) {
      throw new ValidationError(`A ${this.name} row can't be stored: ${describeDataIssues(unfit)}.`, unfit);
    }
    const item: Record<string, unknown> = { ...fields, ...this.keyAttributes(fields) };
    for (const index of Object.values(this.indexes)) {
      // A row lacking an index's composites stays out of that (sparse) index.
      if (![...index.pk.composite, ...(index.sk?.composite ?? [])].every((field) => fields[field] !== undefined)) continue;
      item[index.pk.field] = keyValue(this.name, index.pk, fields);
      if (index.sk !== undefined) item[index.sk.field] = keyValue(this.name, index.sk, fields, 'sort');
    }
    item[RowAttributes.model] = this.name;
    item[RowAttributes.createdAt] = times.createdAt;
    item[RowAttributes.updatedAt] = times.updatedAt;
    return item;
  }

  /** The row of a stored item, timestamps included and hidden fields only when asked for. */
  fromItem(item: Readonly<Record<string, unknown>>, options: { includeHidden?: boolean | undefined } = {}): Stored<z.output<Schema>> {
    const parsed = this.schema.safeParse(item);
    if (!parsed.success) {
      throw new DecodeError(`A stored ${this.name} row no longer matches its schema: ${parsed.error.message}`, undefined, zodIssues(parsed.error));
    }
    const row: Record<string, unknown> = { ...(parsed.data as Record<string, unknown>) };
    if (options.includeHidden !== true) for (const field of this.hidden) delete row[field];
    row[RowAttributes.createdAt] = item[RowAttributes.createdAt];
    row[RowAttributes.updatedAt] = item[RowAttributes.updatedAt];
    if (item[RowAttributes.deleted] === true) row['removed'] = true;
    return row as Stored<z.output<Schema>>;
  }

  /** The raw stored item of a key, strongly consistent (what a projection folds from). */
  getItem(values: KeyValues<z.output<Schema>, Key>): Promise<Record<string, unknown> | undefined> {
    return getItem(this.documents, this.table, this.keyAttributes(values));
  }

  /** One row by its key fields. */
  async get(values: KeyValues<z.output<Schema>, Key>, options: ReadOptions = {}): Promise<Stored<z.output<Schema>> | undefined> {
    const item = await getItem(withSignal(this.documents, options.signal), this.table, this.keyAttributes(values), options.consistent === true);
    if (item === undefined || item[RowAttributes.stub] === true || (item[RowAttributes.deleted] === true && options.includeRemoved !== true))
      return undefined;
    return this.fromItem(item, options);
  }

  /**
   * Writes a whole row outside a projection: every field set, absent optional fields removed, `createdAt`
   * kept from the first write and `updatedAt` set now.
   */
  async put(row: z.input<Schema>, options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    const now = new Date().toISOString();
    const item = this.toItem(row, { createdAt: now, updatedAt: now });
    const key = this.keyAttributes(item);
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    Object.entries(item).forEach(([attribute, value], index) => {
      if (attribute in key) return;
      names[`#a${index}`] = attribute;
      values[`:v${index}`] = value;
      sets.push(attribute === RowAttributes.createdAt ? `#a${index} = if_not_exists(#a${index}, :v${index})` : `#a${index} = :v${index}`);
    });
    const removes = [...this.removableAttributes()]
      .filter((attribute) => !(attribute in item))
      .map((attribute, index) => {
        names[`#r${index}`] = attribute;
        return `#r${index}`;
      });
    await request('UpdateItem', this.table, () =>
      withSignal(this.documents, options.signal).send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  private removableAttributes(): Set<string> {
    const attributes = new Set(Object.keys(this.schema.shape));
    for (const index of Object.values(this.indexes)) {
      attributes.add(index.pk.field);
      if (index.sk !== undefined) attributes.add(index.sk.field);
    }
    attributes.add(RowAttributes.deleted);
    attributes.add(RowAttributes.stub);
    return attributes;
  }

  /**
   * Rows of an index (or `'primary'`) whose partition key fields have these values, optionally narrowed by a
   * leading part of the sort key's fields, a page at a time. The values are typed from the index: every
   * partition key field, then the sort key's fields in order, stopping anywhere.
   */
  async query<const Name extends IndexName<Indexes>>(
    indexName: Name,
    queryValues: QueryValues<z.output<Schema>, IndexByName<Indexes, Key, Name>>,
    options: ReadOptions & { limit?: number | undefined; cursor?: string | undefined; descending?: boolean | undefined } = {},
  ): Promise<Page<z.output<Schema>>> {
    const values = queryValues as AnyKeyValues;
    const index = indexName === 'primary' ? { name: undefined, ...this.key } : (this.indexes as Record<string, IndexDefinition>)[indexName];
    if (index === undefined)
      throw new ValidationError(`${this.name} has no index "${indexName}"; known: primary, ${Object.keys(this.indexes).join(', ')}.`);
    if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit < 1))
      throw new ValidationError('Expected `limit` to be a positive integer.');
    const names: Record<string, string> = { '#pk': index.pk.field };
    const expressionValues: Record<string, unknown> = { ':pk': keyValue(this.name, index.pk, values) };
    let condition = '#pk = :pk';
    const prefix = index.sk === undefined ? undefined : keyPrefix(this.name, index.sk, values);
    if (index.sk !== undefined && prefix !== undefined) {
      names['#sk'] = index.sk.field;
      expressionValues[':sk'] = prefix.value;
      condition += prefix.exact ? ' AND #sk = :sk' : ' AND begins_with(#sk, :sk)';
    }
    const hideRemoved = options.includeRemoved !== true;
    names['#stub'] = RowAttributes.stub;
    if (hideRemoved) names['#deleted'] = RowAttributes.deleted;
    const page = await request('Query', this.table, () =>
      withSignal(this.documents, options.signal).send(
        new QueryCommand({
          TableName: this.table,
          IndexName: index.name,
          KeyConditionExpression: condition,
          // Stubs (a projection's bookkeeping before a row exists) never show; tombstones only when asked for.
          FilterExpression: hideRemoved ? 'attribute_not_exists(#stub) AND attribute_not_exists(#deleted)' : 'attribute_not_exists(#stub)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: expressionValues,
          ConsistentRead: index.name === undefined && options.consistent === true ? true : undefined,
          Limit: options.limit,
          ScanIndexForward: options.descending === true ? false : undefined,
          ExclusiveStartKey: options.cursor === undefined ? undefined : decodeCursor(options.cursor),
        }),
      ),
    );
    return {
      items: (page.Items ?? []).map((item) => this.fromItem(item, options)),
      ...(page.LastEvaluatedKey === undefined ? {} : { cursor: Buffer.from(JSON.stringify(page.LastEvaluatedKey)).toString('base64url') }),
    };
  }
}

function decodeCursor(cursor: string): Record<string, unknown> {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (typeof key !== 'object' || key === null || Array.isArray(key)) throw new Error('not an object');
    return key as Record<string, unknown>;
  } catch (cause) {
    throw new ValidationError(
      'The `cursor` is not one a query returned: pass back `page.cursor` unchanged.',
      [{ path: ['cursor'], message: 'invalid' }],
      { cause },
    );
  }
}

/** Removes undefined fields, so a write never depends on the document client's marshalling options. */
export function withoutUndefined(row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
}
