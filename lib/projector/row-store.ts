import { BatchGetCommand, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ReadModel } from '../store';
import { RowAttributes } from '../store/read-model-keys';
import { errorName, request } from '../store/request';
import { backoffDelay } from '../util/backoff';
import { sleep } from '../util/sleep';
import { storedCheckpoint, type CheckpointField } from './checkpoint';

/** How a projection keeps its rows: the model, where the checkpoint lives, and the optional row features. */
export interface RowStore {
  readonly readModel: ReadModel;
  /** A single-source checkpoint field; multi-source rows keep theirs in a map instead. */
  readonly checkpoint?: CheckpointField;
  /** Keep a revision, incremented on every write and part of every write's condition. */
  readonly revision: boolean;
  /** Let DynamoDB TTL expire tombstones after this long. */
  readonly tombstoneTtl?: { readonly attribute: string; readonly seconds: number };
}

/** A row as read for a fold: its state, checkpoint and what the conditional write must find unchanged. */
export interface ReadRow<State> {
  readonly exists: boolean;
  /** A tombstone: the row was removed and keeps only its checkpoint. */
  readonly removed: boolean;
  /** The row's state; `undefined` when it does not exist or was removed. */
  readonly state: State | undefined;
  /** The last stream version considered for the row (0 without a checkpoint). */
  readonly checkpoint: number;
  /** The stored checkpoint value, `undefined` when the row or its checkpoint field is absent. */
  readonly storedCheckpoint: number | undefined;
  readonly revision: number | undefined;
  readonly createdAt: string | undefined;
  /** The stored item, for what the row keeps outside its schema (multi-source checkpoints). */
  readonly item: Readonly<Record<string, unknown>> | undefined;
}

/** A stored item as the fold sees it. */
export function rowFromItem<State>(store: RowStore, item: Readonly<Record<string, unknown>> | undefined): ReadRow<State> {
  if (item === undefined) {
    return { exists: false, removed: false, state: undefined, checkpoint: 0, storedCheckpoint: undefined, revision: undefined, createdAt: undefined, item };
  }
  const removed = item[RowAttributes.deleted] === true;
  const { createdAt, updatedAt: _updatedAt, ...state } = store.readModel.fromItem(item, { includeHidden: true }) as Record<string, unknown>;
  const stored = store.checkpoint === undefined ? undefined : item[store.checkpoint.field];
  const revision = item[RowAttributes.revision];
  return {
    exists: true,
    removed,
    state: removed ? undefined : (state as State),
    checkpoint: store.checkpoint === undefined ? 0 : (storedCheckpoint(store.checkpoint, item) ?? 0),
    storedCheckpoint: typeof stored === 'number' ? stored : undefined,
    revision: typeof revision === 'number' ? revision : undefined,
    createdAt: typeof createdAt === 'string' ? createdAt : undefined,
    item,
  };
}

/** Reads one row strongly consistent, hidden fields included: the projection owns the whole row. */
export async function readRow<State>(store: RowStore, key: Readonly<Record<string, unknown>>): Promise<ReadRow<State>> {
  const { readModel } = store;
  const result = await request('GetItem', () =>
    readModel.documents.send(new GetCommand({ TableName: readModel.table, Key: readModel.keyOf(key), ConsistentRead: true })),
  );
  return rowFromItem(store, result.Item);
}

const BATCH_GET_LIMIT = 100;

/**
 * Reads the rows of a call in as few requests as DynamoDB allows: one strongly consistent BatchGetItem
 * per 100 keys (a single row is one GetItem). Keys it leaves unprocessed are asked for again.
 */
export async function readRows<State>(store: RowStore, keys: ReadonlyArray<Readonly<Record<string, unknown>>>): Promise<Array<ReadRow<State>>> {
  if (keys.length === 1) return [await readRow<State>(store, keys[0] as Readonly<Record<string, unknown>>)];
  const { readModel } = store;
  const ids = keys.map((key) => readModel.keyOf(key));
  const found = new Map<string, Record<string, unknown>>();
  const idOf = (key: Readonly<Record<string, unknown>>) => Object.keys(ids[0] ?? {}).map((attribute) => String(key[attribute])).join('\u0000');
  for (let start = 0; start < ids.length; start += BATCH_GET_LIMIT) {
    let pending: Record<string, unknown>[] = ids.slice(start, start + BATCH_GET_LIMIT);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await sleep(backoffDelay(attempt - 1, { initialMs: 10, maxMs: 500 }));
      const keysToRead = pending;
      const result = await request('BatchGetItem', () =>
        readModel.documents.send(new BatchGetCommand({ RequestItems: { [readModel.table]: { Keys: keysToRead, ConsistentRead: true } } })),
      );
      for (const item of result.Responses?.[readModel.table] ?? []) found.set(idOf(item), item);
      pending = (result.UnprocessedKeys?.[readModel.table]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return ids.map((id) => rowFromItem<State>(store, found.get(idOf(id))));
}

/** The item a fold writes: the row validated, with checkpoint, revision and tombstone marks, `createdAt` kept. */
export function rowItem(
  store: RowStore,
  read: ReadRow<unknown>,
  row: Readonly<Record<string, unknown>>,
  fold: { readonly version?: number; readonly removed?: boolean },
): Record<string, unknown> {
  const now = new Date();
  const fields = store.checkpoint === undefined || fold.version === undefined ? row : { ...row, [store.checkpoint.field]: fold.version + store.checkpoint.offset };
  const item = store.readModel.toItem(fields, { createdAt: read.createdAt ?? now.toISOString(), updatedAt: now.toISOString() });
  if (store.revision) item[RowAttributes.revision] = (read.revision ?? 0) + 1;
  if (fold.removed === true) {
    item[RowAttributes.deleted] = true;
    if (store.tombstoneTtl !== undefined) item[store.tombstoneTtl.attribute] = Math.floor(now.getTime() / 1000) + store.tombstoneTtl.seconds;
  }
  return item;
}

/** The condition that what was read is still there: no row; else the same checkpoint and revision (or still none). */
function rowCondition(store: RowStore, read: ReadRow<unknown>): { condition: string; names: Record<string, string>; values: Record<string, unknown> } {
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
  if (store.checkpoint !== undefined) same('cp', store.checkpoint.field, read.storedCheckpoint);
  if (store.revision) same('rev', RowAttributes.revision, read.revision);
  return { condition: parts.join(' AND '), names, values };
}

/** A Put to send in the same transaction as the row (an outbox message). */
export interface ExtraPut {
  readonly table: string;
  readonly item: Record<string, unknown>;
}

/**
 * Writes a row whole, conditioned on what was read. With extra Puts (outbox messages) it is one
 * TransactWriteItems, so the row and its messages are written together or not at all. Resolves `false`
 * when another writer got there first (or DynamoDB cancelled the transaction for a concurrent one).
 */
export async function writeRow(store: RowStore, read: ReadRow<unknown>, item: Record<string, unknown>, extras: ReadonlyArray<ExtraPut> = []): Promise<boolean> {
  const { condition, names, values } = rowCondition(store, read);
  const put = {
    TableName: store.readModel.table,
    Item: item,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length === 0 ? {} : { ExpressionAttributeValues: values }),
  };
  try {
    if (extras.length === 0) {
      await store.readModel.documents.send(new PutCommand(put));
    } else {
      await store.readModel.documents.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: put }, ...extras.map((extra) => ({ Put: { TableName: extra.table, Item: extra.item } }))],
        }),
      );
    }
    return true;
  } catch (error) {
    const name = errorName(error);
    if (name === 'ConditionalCheckFailedException') return false;
    if (name === 'TransactionCanceledException') {
      const codes = ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((reason) => reason.Code);
      if (codes[0] === 'ConditionalCheckFailed' || codes.includes('TransactionConflict')) return false;
    }
    return request(extras.length === 0 ? 'PutItem' : 'TransactWriteItems', () => Promise.reject(error));
  }
}
