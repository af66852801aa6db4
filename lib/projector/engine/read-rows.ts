import { BatchGetCommand, GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ReadModel, RowAttributes } from '../../store';
import { KeyLimits, asRequestError, cancellationCodes, isConditionFailure, request } from '../../dynamo';
import { backoffDelay, sleep } from '../../util';
import { storedCheckpoint, type CheckpointField } from './checkpoints';
import type { EventRef, ParkedRow } from '../outcome';

/**
 * How a projection keeps its rows: the model, where checkpoints live, and the optional row features.
 * A single-source row keeps its checkpoint in a field of its own (`version + offset`) and records the one
 * stream instance feeding it; a multi-source row keeps a checkpoint per source instance in a map.
 */
export interface RowStore {
  readonly readModel: ReadModel;
  /** A document client on the read model's client. */
  readonly documents: DynamoDBDocumentClient;
  readonly checkpoints: { readonly kind: 'field'; readonly field: CheckpointField } | { readonly kind: 'perInstance' };
  /** Keep a revision, incremented on every write and part of every write's condition. */
  readonly revision: boolean;
  /** Let DynamoDB TTL expire tombstones after this long. */
  readonly tombstoneTtl?: { readonly attribute: string; readonly durationMs: number } | undefined;
}

/** A row as read for a fold: its state, checkpoints and what the conditional write must find unchanged. */
export interface ReadRow<State> {
  readonly exists: boolean;
  /** A tombstone: the row was removed and keeps only its checkpoints. */
  readonly removed: boolean;
  /** The row's state; `undefined` when it does not exist or was removed. */
  readonly state: State | undefined;
  /** The last version considered of each source instance (by `instanceKey`) the row records. */
  readonly checkpoints: ReadonlyMap<string, number>;
  /**
   * A single-source row's checkpoint when it does not record its source instance (written by a version
   * that did not, or by `ReadModel.put`): it belongs to whichever instance feeds the row.
   */
  readonly unattributed: number | undefined;
  /** The stored checkpoint field's value, `undefined` when the row or its checkpoint field is absent. */
  readonly storedCheckpoint: number | undefined;
  readonly revision: number | undefined;
  readonly createdAt: string | undefined;
  /** A stub: the row's bookkeeping without the row (see `RowAttributes.stub`). */
  readonly stub: boolean;
  /** Failed attempts at the row's next events, counted towards parking. */
  readonly failures: FailureRecord | undefined;
  /** The row is parked. */
  readonly parked: ParkedRecord | undefined;
  /** Events skipped on purpose past a parked row. */
  readonly skippedEvents: ReadonlyArray<SkippedRecord>;
}

/** Failed attempts at a row's next events, as stored on the row. */
export interface FailureRecord {
  readonly attempts: number;
  readonly firstFailureAt: string;
  readonly lastFailureAt: string;
  readonly error: { readonly name: string; readonly message: string };
  readonly event: EventRef;
}

/** A parked row as stored: `seen` counts its updates, which are conditioned on it. */
export interface ParkedRecord extends ParkedRow {
  readonly seen: number;
}

/** An event skipped past a parked row, as the row records it. */
export interface SkippedRecord {
  readonly event: EventRef;
  readonly error: { readonly name: string; readonly message: string };
  readonly skippedAt: string;
}

/** A stored item as the fold sees it. */
export function rowFromItem<State>(store: RowStore, item: Readonly<Record<string, unknown>> | undefined): ReadRow<State> {
  if (item === undefined) {
    return {
      exists: false,
      removed: false,
      state: undefined,
      checkpoints: new Map(),
      unattributed: undefined,
      storedCheckpoint: undefined,
      revision: undefined,
      createdAt: undefined,
      stub: false,
      failures: undefined,
      parked: undefined,
      skippedEvents: [],
    };
  }
  const removed = item[RowAttributes.deleted] === true;
  const stub = item[RowAttributes.stub] === true;
  // A stub has no fields for the schema to read.
  const {
    createdAt,
    updatedAt: _updatedAt,
    ...state
  } = stub ? { createdAt: undefined, updatedAt: undefined } : (store.readModel.fromItem(item, { includeHidden: true }) as Record<string, unknown>);
  const revision = item[RowAttributes.revision];
  const stored = store.checkpoints.kind === 'field' ? item[store.checkpoints.field.field] : undefined;
  const checkpoints = new Map<string, number>();
  let unattributed: number | undefined;
  if (store.checkpoints.kind === 'field') {
    const checkpoint = storedCheckpoint(store.checkpoints.field, item) ?? 0;
    const source = item[RowAttributes.source];
    if (typeof source === 'string') checkpoints.set(source, checkpoint);
    else unattributed = checkpoint;
  } else {
    const map = item[RowAttributes.sources];
    if (typeof map === 'object' && map !== null)
      for (const [instance, version] of Object.entries(map)) if (typeof version === 'number') checkpoints.set(instance, version);
  }
  const skippedEvents = item[RowAttributes.skippedEvents];
  return {
    exists: true,
    removed,
    state: removed || stub ? undefined : (state as State),
    stub,
    failures: item[RowAttributes.failures] as FailureRecord | undefined,
    parked: item[RowAttributes.parked] as ParkedRecord | undefined,
    skippedEvents: Array.isArray(skippedEvents) ? (skippedEvents as SkippedRecord[]) : [],
    checkpoints,
    unattributed,
    storedCheckpoint: typeof stored === 'number' ? stored : undefined,
    revision: typeof revision === 'number' ? revision : undefined,
    createdAt: typeof createdAt === 'string' ? createdAt : undefined,
  };
}

/** Reads one row strongly consistent, hidden fields included: the projection owns the whole row. */
export async function readRow<State>(store: RowStore, key: Readonly<Record<string, unknown>>): Promise<ReadRow<State>> {
  const { readModel } = store;
  const result = await request('GetItem', readModel.table, () =>
    store.documents.send(new GetCommand({ TableName: readModel.table, Key: readModel.keyOf(key), ConsistentRead: true })),
  );
  return rowFromItem(store, result.Item);
}

/**
 * Reads the rows of a call in as few requests as DynamoDB allows: one strongly consistent BatchGetItem
 * per 100 keys (a single row is one GetItem). Keys it leaves unprocessed are asked for again.
 */
export async function readRows<State>(store: RowStore, keys: ReadonlyArray<Readonly<Record<string, unknown>>>): Promise<Array<ReadRow<State>>> {
  if (keys.length === 1) return [await readRow<State>(store, keys[0] as Readonly<Record<string, unknown>>)];
  const { readModel } = store;
  const ids = keys.map((key) => readModel.keyOf(key));
  const found = new Map<string, Record<string, unknown>>();
  const idOf = (key: Readonly<Record<string, unknown>>) => JSON.stringify(Object.keys(ids[0] ?? {}).map((attribute) => key[attribute]));
  for (let start = 0; start < ids.length; start += KeyLimits.batchGetKeys) {
    let pending: Record<string, unknown>[] = ids.slice(start, start + KeyLimits.batchGetKeys);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await sleep(backoffDelay(attempt - 1, { initialMs: 10, maxMs: 500 }));
      const keysToRead = pending;
      const result = await request('BatchGetItem', readModel.table, () =>
        store.documents.send(new BatchGetCommand({ RequestItems: { [readModel.table]: { Keys: keysToRead, ConsistentRead: true } } })),
      );
      for (const item of result.Responses?.[readModel.table] ?? []) found.set(idOf(item), item);
      pending = (result.UnprocessedKeys?.[readModel.table]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return ids.map((id) => rowFromItem<State>(store, found.get(idOf(id))));
}

/** What a fold decided for a row write: each source instance's checkpoint, whether the row ends removed, events skipped on purpose. */
export interface RowMarks {
  readonly checkpoints: ReadonlyMap<string, number>;
  readonly removed: boolean;
  /** Events skipped past a parked row by this write, recorded with those the row had. */
  readonly skipped?: ReadonlyArray<SkippedRecord> | undefined;
  /** The failed attempts the row keeps counting (their event is still ahead of its checkpoint). */
  readonly failures?: FailureRecord | undefined;
  /** The row stays parked with this record. */
  readonly parked?: ParkedRecord | undefined;
}

/** The item a fold writes: the row validated, with checkpoints, revision and tombstone marks, `createdAt` kept. */
export function rowItem(store: RowStore, read: ReadRow<unknown>, row: Readonly<Record<string, unknown>>, marks: RowMarks): Record<string, unknown> {
  const now = new Date();
  let fields = row;
  if (store.checkpoints.kind === 'field') {
    const [[source, version] = []] = [...marks.checkpoints];
    if (source !== undefined && version !== undefined) fields = { ...row, [store.checkpoints.field.field]: version + store.checkpoints.field.offset };
  }
  const item = store.readModel.toItem(fields, { createdAt: read.createdAt ?? now.toISOString(), updatedAt: now.toISOString() });
  markCheckpoints(store, read, item, marks);
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
export function stubItem(store: RowStore, read: ReadRow<unknown>, key: Readonly<Record<string, unknown>>, marks: RowMarks): Record<string, unknown> {
  const item: Record<string, unknown> = { ...store.readModel.keyOf(key), [RowAttributes.model]: store.readModel.name, [RowAttributes.stub]: true };
  if (store.checkpoints.kind === 'field') {
    const [version] = marks.checkpoints.values();
    if (version !== undefined) item[store.checkpoints.field.field] = version + store.checkpoints.field.offset;
  }
  markCheckpoints(store, read, item, marks);
  return item;
}

/** The bookkeeping every written item carries: whose checkpoints, the revision, skipped events, failures and parking kept. */
function markCheckpoints(store: RowStore, read: ReadRow<unknown>, item: Record<string, unknown>, marks: RowMarks): void {
  if (store.checkpoints.kind === 'field') {
    const [source] = marks.checkpoints.keys();
    if (source !== undefined) item[RowAttributes.source] = source;
  } else {
    item[RowAttributes.sources] = Object.fromEntries(marks.checkpoints);
  }
  if (store.revision) item[RowAttributes.revision] = (read.revision ?? 0) + 1;
  const skipped = [...read.skippedEvents, ...(marks.skipped ?? [])];
  if (skipped.length > 0) item[RowAttributes.skippedEvents] = skipped;
  if (marks.failures !== undefined) item[RowAttributes.failures] = marks.failures;
  if (marks.parked !== undefined) item[RowAttributes.parked] = marks.parked;
}

/**
 * The condition that what was read is still there: no row; else the same checkpoint and revision (or
 * still none) and the same failure count and parked record.
 */
export function rowCondition(
  store: RowStore,
  read: ReadRow<unknown>,
): { condition: string; names: Record<string, string>; values: Record<string, unknown> } {
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
  if (store.checkpoints.kind === 'field') same('cp', store.checkpoints.field.field, read.storedCheckpoint);
  if (store.revision) same('rev', RowAttributes.revision, read.revision);
  // Counting or parking a failure changes neither checkpoint nor revision; a writer that read the row
  // before must not wipe the record (nor apply past a parked event).
  names['#failures'] = RowAttributes.failures;
  if (read.failures === undefined) {
    parts.push('attribute_not_exists(#failures)');
  } else {
    names['#attempts'] = 'attempts';
    values[':attempts'] = read.failures.attempts;
    parts.push('#failures.#attempts = :attempts');
  }
  names['#parked'] = RowAttributes.parked;
  if (read.parked === undefined) {
    parts.push('attribute_not_exists(#parked)');
  } else {
    names['#seen'] = 'seen';
    values[':seen'] = read.parked.seen;
    parts.push('#parked.#seen = :seen');
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
export async function writeRow(
  store: RowStore,
  read: ReadRow<unknown>,
  item: Record<string, unknown>,
  extras: ReadonlyArray<ExtraPut> = [],
): Promise<boolean> {
  const put = rowPut(store, read, item);
  try {
    if (extras.length === 0) {
      await store.documents.send(new PutCommand(put));
    } else {
      await store.documents.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: put }, ...extras.map((extra) => ({ Put: { TableName: extra.table, Item: extra.item } }))],
        }),
      );
    }
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    const codes = cancellationCodes(error);
    if (codes !== undefined && (codes[0] === 'ConditionalCheckFailed' || codes.includes('TransactionConflict'))) return false;
    throw extras.length === 0
      ? asRequestError('PutItem', store.readModel.table, error)
      : asRequestError('TransactWriteItems', [store.readModel.table, ...extras.map((extra) => extra.table)], error);
  }
}
