import { PutCommand, TransactWriteCommand, UpdateCommand, type PutCommandInput, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { RowAttributes } from '../../read-model';
import { asRequestError, cancellationCodes, getItem, landedDespite, sendConditional, type OwnItem } from '../../dynamo';
import { holdsWrite, nextWrite, writeIdOf } from './row-writes';
import type { ExtraPut } from './row-messages';
import { markRecords, recordsCondition, type RowMarks } from './row-marks';
import type { Key } from './plan-rows';
import type { ReadRow } from './read-rows';
import type { RowStore } from './row-store';

/** The item a fold writes: the row validated, with checkpoints, revision and tombstone marks, `createdAt` kept. */
export function rowItem(store: RowStore, read: ReadRow<unknown>, row: Readonly<Record<string, unknown>>, marks: RowMarks): Record<string, unknown> {
  const now = new Date();
  const fields = store.checkpoints.withField(row, marks.checkpoints);
  const item = store.readModel.toItem(fields, { createdAt: read.createdAt ?? now.toISOString(), updatedAt: now.toISOString() });
  markBookkeeping(store, read, item, marks);
  if (marks.removed) {
    item[RowAttributes.deleted] = true;
    // DynamoDB's TTL attribute holds epoch seconds.
    if (store.tombstoneTtl !== undefined) item[store.tombstoneTtl.attribute] = Math.floor((now.getTime() + store.tombstoneTtl.durationMs) / 1000);
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

/** The bookkeeping every written item carries: whose checkpoints, the revision, and the records kept. */
function markBookkeeping(store: RowStore, read: ReadRow<unknown>, item: Record<string, unknown>, marks: RowMarks): void {
  store.checkpoints.mark(item, marks.checkpoints);
  if (store.revision) item[RowAttributes.revision] = (read.revision ?? 0) + 1;
  if (marks.more === true) item[RowAttributes.more] = true;
  item[RowAttributes.writes] = nextWrite(read.writes).writes;
  markRecords(item, marks);
}

/** A write's condition: the expression, with its attribute names and values. */
export interface RowCondition {
  condition: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * The condition that what was read is still there: no row; else the same checkpoint and revision (or
 * still none), the same `more` mark, the same records (failure count, parked record) and the same last
 * writes (see `RowWrites`: a write in between, whatever it changed, is another writer's).
 */
export function rowCondition(store: RowStore, read: ReadRow<unknown>): RowCondition {
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
  parts.push(...recordsCondition(read, names, values));
  names['#writes'] = RowAttributes.writes;
  if (read.writes === undefined) {
    parts.push('attribute_not_exists(#writes)');
  } else {
    values[':writes'] = read.writes;
    parts.push('#writes = :writes');
  }
  return { condition: parts.join(' AND '), names, values };
}

/** The Put of a row's item, conditioned on what was read (see {@link rowCondition}). */
export function rowPut(
  store: RowStore,
  read: ReadRow<unknown>,
  item: Record<string, unknown>,
): {
  TableName: string;
  Item: Record<string, unknown>;
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown> | undefined;
} {
  const { condition, names, values } = rowCondition(store, read);
  return {
    TableName: store.readModel.table,
    Item: item,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length === 0 ? {} : { ExpressionAttributeValues: values }),
  };
}

/**
 * Sends a single conditional write of a row (a Put or an Update whose input is `input`), asking for the row
 * on a failed condition: resolves whether it was written, by this request or by its own earlier attempt
 * (the row then holds its id `writeId`: see `RowWrites`).
 */
export async function sendRowWrite(store: RowStore, operation: 'PutItem' | 'UpdateItem', writeId: string, input: RowWriteInput): Promise<boolean> {
  const asked = { ...input, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  const key = 'Key' in input && input.Key !== undefined ? input.Key : rowKeyOf(store, (input as PutCommandInput).Item ?? {});
  const outcome = await sendConditional(
    operation,
    store.readModel.table,
    () =>
      operation === 'PutItem'
        ? store.documents.send(new PutCommand(asked as PutCommandInput))
        : store.documents.send(new UpdateCommand(asked as UpdateCommandInput)),
    ownRow(store, key, writeId),
  );
  return outcome.kind === 'written';
}

/** How a row write knows its own row: its id among the row's last writes, read strongly consistent after a failure. */
function ownRow(store: RowStore, key: Readonly<Record<string, unknown>>, writeId: string): OwnItem {
  return {
    isOwn: (row) => holdsWrite(row, writeId),
    read: () => getItem(store.documents, store.readModel.table, key as Record<string, string>),
  };
}

/** The key attributes of a stored row item. */
function rowKeyOf(store: RowStore, item: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { pk, sk } = store.readModel.key;
  return sk === undefined ? { [pk.field]: item[pk.field] } : { [pk.field]: item[pk.field], [sk.field]: item[sk.field] };
}

/** A row write's input: a Put's or an Update's. */
export type RowWriteInput = PutCommandInput | UpdateCommandInput;

/**
 * Writes a row whole, conditioned on what was read. With extra Puts (outbox messages) it is one
 * TransactWriteItems, so the row and its messages are written together or not at all. Resolves `false`
 * when another writer got there first (or DynamoDB cancelled the transaction for a concurrent one).
 */
export async function writeRow(
  store: RowStore,
  read: ReadRow<unknown>,
  item: Record<string, unknown>,
  extras: ReadonlyArray<ExtraPut> = [],
): Promise<boolean> {
  const put = rowPut(store, read, item);
  if (extras.length === 0) return sendRowWrite(store, 'PutItem', writeIdOf(item) as string, put);
  try {
    // A transaction needs no id to know itself: the SDK sends a repeat with the same ClientRequestToken.
    await store.documents.send(
      new TransactWriteCommand({
        TransactItems: [{ Put: put }, ...extras.map((extra) => ({ Put: { TableName: extra.table, Item: extra.item } }))],
      }),
    );
    return true;
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes !== undefined && (codes[0] === 'ConditionalCheckFailed' || codes.includes('TransactionConflict'))) return false;
    if (codes === undefined && (await landedDespite(error, ownRow(store, rowKeyOf(store, item), writeIdOf(item) as string)))) return true;
    throw asRequestError('TransactWriteItems', [store.readModel.table, ...extras.map((extra) => extra.table)], error);
  }
}
