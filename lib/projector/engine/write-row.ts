import { TransactWriteCommand, type PutCommandInput, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { RowAttributes } from '../../read-model';
import { isoTime } from '../../util';
import { asRequestError, cancellationCodes, getItem, landedDespite, sendConditional, sendPutItem, sendUpdateItem, type OwnItem } from '../../dynamo';
import { holdsWrite, nextWrite, writeIdOf } from './row-writes';
import type { Key } from './plan-rows';
import type { ReadRow } from './read-rows';
import type { ExtraPut } from './row-messages';
import type { RowRecords, RowStore } from './row-store';

/*
 * The one way a row is written. Every write of a row, whatever it changes (a fold's whole item, a claim's
 * mark, a feature's records), is built here on the row as read: conditioned on it (`rowCondition`), with a
 * new id among the row's last writes (`RowWrites`), and sent here, where a write whose answer was lost
 * knows its own result (see `sendConditional`). Or it joins a transaction of the caller's, whose
 * `ClientRequestToken` knows it.
 */

/** What a fold decided for a row write: each source instance's checkpoint, whether the row ends removed, its records. */
export interface RowMarks {
  readonly checkpoints: ReadonlyMap<string, number>;
  readonly removed: boolean;
  /** The records the write keeps (see `RecordStrategy.afterFold`). */
  readonly records?: RowRecords | undefined;
  /** The fold goes on with another write after this one (see `RowAttributes.more`). */
  readonly more?: boolean | undefined;
}

/** The item a fold writes: the row validated, with checkpoints, revision and tombstone marks, `createdAt` kept. */
export function rowItem(store: RowStore, read: ReadRow<unknown>, row: Readonly<Record<string, unknown>>, marks: RowMarks): Record<string, unknown> {
  const now = Date.now();
  const at = isoTime(now);
  const fields = store.checkpoints.withField(row, marks.checkpoints);
  const item = store.readModel.toItem(fields, { createdAt: read.createdAt ?? at, updatedAt: at });
  markBookkeeping(store, read, item, marks);
  if (marks.removed) {
    item[RowAttributes.deleted] = true;
    // DynamoDB's TTL attribute holds epoch seconds.
    if (store.tombstoneTtl !== undefined) item[store.tombstoneTtl.attribute] = Math.floor((now + store.tombstoneTtl.durationMs) / 1000);
  }
  return item;
}

/**
 * The item of a stub: the row's key, its checkpoints and what it recorded, no fields. Written where a row
 * that does not exist must keep bookkeeping (a checkpoint past a skipped event).
 */
export function stubItem(store: RowStore, read: ReadRow<unknown>, key: Key, marks: RowMarks): Record<string, unknown> {
  const item = store.checkpoints.withField(
    { ...store.readModel.keyOf(key), [RowAttributes.model]: store.readModel.name, [RowAttributes.stub]: true },
    marks.checkpoints,
  );
  markBookkeeping(store, read, item, marks);
  return item;
}

/** The bookkeeping every written item carries: whose checkpoints, the revision, the write's id, and the records kept. */
function markBookkeeping(store: RowStore, read: ReadRow<unknown>, item: Record<string, unknown>, marks: RowMarks): void {
  store.checkpoints.mark(item, marks.checkpoints);
  if (store.revision) item[RowAttributes.revision] = (read.revision ?? 0) + 1;
  if (marks.more === true) item[RowAttributes.more] = true;
  item[RowAttributes.writes] = nextWrite(read.writes).writes;
  for (const [attribute, value] of Object.entries(marks.records ?? {})) if (value !== undefined) item[attribute] = value;
}

/** A write's condition: the expression, with its attribute names and values. */
interface RowCondition {
  condition: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * The condition that what was read is still there: no row; else the same checkpoint and revision (or
 * still none), the same `more` mark, the same records (as their strategy says) and the same last writes
 * (see `RowWrites`: a write in between, whatever it changed, is another writer's).
 */
function rowCondition(store: RowStore, read: ReadRow<unknown>): RowCondition {
  const names: Record<string, string> = { '#pk': store.readModel.key.pk.field };
  const values: Record<string, unknown> = {};
  if (!read.exists) return { condition: 'attribute_not_exists(#pk)', names, values };
  const parts = ['attribute_exists(#pk)'];
  const same = (placeholder: string, attribute: string, value: number | undefined) => {
    names[`#${placeholder}`] = attribute;
    if (value === undefined) {
      parts.push(`attribute_not_exists(#${placeholder})`);
    } else {
      values[`:${placeholder}`] = value;
      parts.push(`#${placeholder} = :${placeholder}`);
    }
  };
  const checkpoint = store.checkpoints.condition(read);
  if (checkpoint !== undefined) same('cp', checkpoint.attribute, checkpoint.value);
  if (store.revision) same('rev', RowAttributes.revision, read.revision);
  // A row marked `more` is another fold's until its last write (or until it is taken over, as read).
  names['#more'] = RowAttributes.more;
  if (read.more) {
    values[':more'] = true;
    parts.push('#more = :more');
  } else {
    parts.push('attribute_not_exists(#more)');
  }
  parts.push(...store.records.condition(read.records, names, values));
  names['#writes'] = RowAttributes.writes;
  if (read.writes === undefined) {
    parts.push('attribute_not_exists(#writes)');
  } else {
    values[':writes'] = read.writes;
    parts.push('#writes = :writes');
  }
  return { condition: parts.join(' AND '), names, values };
}

/**
 * A conditional write of a row, built on the row as read: a Put of the whole item or an Update of some
 * attributes; its `id`, and the ids of the row's last writes once it went through (`writes`, which the
 * next write's condition finds).
 */
export type RowWrite = PutWrite | UpdateWrite;

/** A write of a row's whole item (see {@link RowWrite}). */
export interface PutWrite {
  readonly operation: 'PutItem';
  readonly input: RowPut;
  readonly id: string;
  readonly writes: string;
}

/** A write of some of a row's attributes (see {@link RowWrite}). */
export interface UpdateWrite {
  readonly operation: 'UpdateItem';
  readonly input: RowUpdate;
  readonly id: string;
  readonly writes: string;
}

/** A Put of a row's whole item, as a request or a transaction takes it. */
export interface RowPut {
  readonly TableName: string;
  readonly Item: Record<string, unknown>;
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues?: Record<string, unknown> | undefined;
}

/** An Update of some of a row's attributes, as a request or a transaction takes it. */
export interface RowUpdate {
  readonly TableName: string;
  readonly Key: Record<string, unknown>;
  readonly UpdateExpression: string;
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, unknown>;
}

/** The Put of a row's item (`rowItem`, `stubItem`: it carries the write's id), conditioned on the row as read. */
export function putRow(store: RowStore, read: ReadRow<unknown>, item: Record<string, unknown>): PutWrite {
  const { condition, names, values } = rowCondition(store, read);
  return {
    operation: 'PutItem',
    id: writeIdOf(item) as string,
    writes: item[RowAttributes.writes] as string,
    input: {
      TableName: store.readModel.table,
      Item: item,
      ConditionExpression: condition,
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length === 0 ? {} : { ExpressionAttributeValues: values }),
    },
  };
}

/**
 * The Update of some of a row's attributes (`undefined` removes one), conditioned on the row as read, with
 * the write's id among the row's last writes. A row that does not exist is created as a stub: its key and
 * model, and these attributes, hidden from reads.
 */
export function updateRow(store: RowStore, read: ReadRow<unknown>, key: Key, attributes: Readonly<Record<string, unknown>>): UpdateWrite {
  const { condition, names, values } = rowCondition(store, read);
  const write = nextWrite(read.writes);
  const changes: Record<string, unknown> = {
    ...attributes,
    ...(read.exists ? {} : { [RowAttributes.stub]: true, [RowAttributes.model]: store.readModel.name }),
    [RowAttributes.writes]: write.writes,
  };
  const placeholders = new Map(Object.entries(names).map(([placeholder, attribute]) => [attribute, placeholder]));
  const sets: string[] = [];
  const removes: string[] = [];
  Object.entries(changes).forEach(([attribute, value], index) => {
    // An attribute the condition names already keeps its placeholder: each name is given once.
    const name = placeholders.get(attribute) ?? `#u${index}`;
    names[name] = attribute;
    if (value === undefined) {
      removes.push(name);
    } else {
      values[`:u${index}`] = value;
      sets.push(`${name} = :u${index}`);
    }
  });
  return {
    operation: 'UpdateItem',
    id: write.id,
    writes: write.writes,
    input: {
      TableName: store.readModel.table,
      Key: store.readModel.keyOf(key),
      UpdateExpression: `SET ${sets.join(', ')}${removes.length === 0 ? '' : ` REMOVE ${removes.join(', ')}`}`,
      ConditionExpression: condition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * Sends a row's write, resolving whether it went through: `false` when another writer changed the row since
 * it was read. Alone, it is one conditional request that asks for the row on a failed condition, and knows
 * its own earlier attempt by its id (see `RowWrites`). With extra Puts (outbox messages) it is one
 * TransactWriteItems, so the row and its messages are written together or not at all (`false` too when
 * DynamoDB cancelled it for a concurrent one).
 */
export async function sendRowWrite(store: RowStore, write: RowWrite, extras: ReadonlyArray<ExtraPut> = []): Promise<boolean> {
  const own = ownRow(store, write);
  if (extras.length > 0) return sendInTransaction(store, write, extras, own);
  const asked = { ...write.input, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  const outcome = await sendConditional(
    write.operation,
    store.readModel.table,
    () =>
      write.operation === 'PutItem'
        ? sendPutItem(store.documents, asked as PutCommandInput)
        : sendUpdateItem(store.documents, asked as UpdateCommandInput),
    own,
  );
  return outcome.kind === 'written';
}

/** A row's write and its extra Puts in one TransactWriteItems. */
async function sendInTransaction(store: RowStore, write: RowWrite, extras: ReadonlyArray<ExtraPut>, own: OwnItem): Promise<boolean> {
  try {
    // A transaction needs no id to know itself: the SDK sends a repeat with the same ClientRequestToken.
    await store.documents.send(
      new TransactWriteCommand({
        TransactItems: [
          write.operation === 'PutItem' ? { Put: write.input } : { Update: write.input },
          ...extras.map((extra) => ({ Put: extraPutInput(extra) })),
        ],
      }),
    );
    return true;
  } catch (error) {
    const codes = cancellationCodes(error);
    // The row changed, or a conditioned extra (a reaction's commit) found its version taken: read and fold again.
    if (codes !== undefined && (codes.includes('ConditionalCheckFailed') || codes.includes('TransactionConflict'))) return false;
    if (codes === undefined && (await landedDespite(error, own))) return true;
    throw asRequestError('TransactWriteItems', [store.readModel.table, ...extras.map((extra) => extra.table)], error);
  }
}

/**
 * Updates a row's records alone (the attributes given: see `RecordStrategy`; `undefined` removes one),
 * conditioned as every write of the row is. Resolves whether it went through (`false`: the row changed
 * since it was read).
 */
export function writeRecords(store: RowStore, read: ReadRow<unknown>, key: Key, records: RowRecords): Promise<boolean> {
  return sendRowWrite(store, updateRow(store, read, key, records));
}

/** An extra Put as a transaction's item takes it, with its condition. */
export function extraPutInput(extra: ExtraPut): PutCommandInput {
  const { condition } = extra;
  if (condition === undefined) return { TableName: extra.table, Item: extra.item };
  return {
    TableName: extra.table,
    Item: extra.item,
    ConditionExpression: condition.expression,
    ...(condition.names === undefined ? {} : { ExpressionAttributeNames: { ...condition.names } }),
    ...(condition.values === undefined ? {} : { ExpressionAttributeValues: { ...condition.values } }),
  };
}

/** How a row write knows its own row: its id among the row's last writes, read strongly consistent after a failure. */
function ownRow(store: RowStore, write: RowWrite): OwnItem {
  const key = write.operation === 'UpdateItem' ? write.input.Key : rowKeyOf(store, write.input.Item);
  return {
    isOwn: (row) => holdsWrite(row, write.id),
    read: () => getItem(store.documents, store.readModel.table, key as Record<string, string>),
  };
}

/** The key attributes of a stored row item. */
function rowKeyOf(store: RowStore, item: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { pk, sk } = store.readModel.key;
  return sk === undefined ? { [pk.field]: item[pk.field] } : { [pk.field]: item[pk.field], [sk.field]: item[sk.field] };
}
