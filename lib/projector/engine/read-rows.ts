import { DynamoRequestError } from '../../errors';
import { RowAttributes } from '../../read-model';
import { KeyLimits, request, sendBatchGet, sendGetItem } from '../../dynamo';
import { backoffDelay, sleep, type Backoff } from '../../util';
import { ProjectionDefaults } from '../defaults';
import type { Key } from './plan-rows';
import { writesOf } from './row-writes';
import { storedKeyOf, type RowRecords, type RowStore, type StoredCheckpoints } from './row-store';

/** A row as read for a fold: its state, checkpoints and what the conditional write must find unchanged. */
export interface ReadRow<State> extends StoredCheckpoints {
  readonly exists: boolean;
  /** A tombstone: the row was removed and keeps only its checkpoints. */
  readonly removed: boolean;
  /** The row's state; `undefined` when it does not exist or was removed. */
  readonly state: State | undefined;
  readonly revision: number | undefined;
  readonly createdAt: string | undefined;
  /** A stub: the row's bookkeeping without the row (see `RowAttributes.stub`). */
  readonly stub: boolean;
  /** Its writer has another write of the same fold to come (see `RowAttributes.more`). */
  readonly more: boolean;
  /** The ids of its last writes (see `RowWrites`), which the next write's condition must find unchanged. */
  readonly writes: string | undefined;
  /** What it records besides its fields and checkpoints (see `RecordStrategy`). */
  readonly records: RowRecords;
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
      more: false,
      writes: undefined,
      records: {},
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
  return {
    exists: true,
    removed,
    state: removed || stub ? undefined : (state as State),
    stub,
    more: item[RowAttributes.more] === true,
    writes: writesOf(item),
    records: Object.fromEntries(store.records.attributes.map((attribute) => [attribute, item[attribute]])),
    ...store.checkpoints.fromItem(item),
    revision: typeof revision === 'number' ? revision : undefined,
    createdAt: typeof createdAt === 'string' ? createdAt : undefined,
  };
}

/** Reads one row strongly consistent, hidden fields included: the projection owns the whole row. */
export async function readRow<State>(store: RowStore, key: Key): Promise<ReadRow<State>> {
  const { readModel } = store;
  const result = await request('GetItem', readModel.table, () =>
    sendGetItem(store.documents, { TableName: readModel.table, Key: readModel.keyOf(key), ConsistentRead: true }),
  );
  return rowFromItem(store, result.Item);
}

/** How `readRows` asks again for keys DynamoDB left unprocessed, and when it gives up. */
export interface UnprocessedRetry {
  /** Requests per 100 keys, the first included. */
  readonly attempts: number;
  readonly backoff: Backoff;
}

/**
 * Reads the rows of a call in as few requests as DynamoDB allows: one strongly consistent BatchGetItem
 * per 100 keys (a single row is one GetItem). Keys it leaves unprocessed are asked for again after a
 * backoff, `retry.attempts` requests in all; then it rejects with a `DynamoRequestError`. An aborted
 * `signal` ends the wait between requests with the signal's reason.
 */
export async function readRows<State>(
  store: RowStore,
  keys: ReadonlyArray<Key>,
  signal?: AbortSignal,
  retry: UnprocessedRetry = ProjectionDefaults.unprocessedKeys,
): Promise<Array<ReadRow<State>>> {
  if (keys.length === 1) return [await readRow<State>(store, keys[0] as Key)];
  const { readModel } = store;
  const ids = keys.map((key) => storedKeyOf({ store }, key).attributes);
  const found = new Map<string, Record<string, unknown>>();
  const attributes = Object.keys(ids[0] ?? {});
  const idOf = (key: Readonly<Record<string, unknown>>) => JSON.stringify(attributes.map((attribute) => key[attribute]));
  for (let start = 0; start < ids.length; start += KeyLimits.batchGetKeys) {
    // The kept stored keys themselves: the request reads them, nothing changes them.
    let pending = ids.slice(start, start + KeyLimits.batchGetKeys) as Record<string, unknown>[];
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === retry.attempts) throw unprocessed(readModel.table, pending.length, attempt);
      if (attempt > 0) await sleep(backoffDelay(attempt - 1, retry.backoff), signal);
      const keysToRead = pending;
      const result = await request('BatchGetItem', readModel.table, () =>
        sendBatchGet(store.documents, { RequestItems: { [readModel.table]: { Keys: keysToRead, ConsistentRead: true } } }),
      );
      for (const item of result.Responses?.[readModel.table] ?? []) found.set(idOf(item), item);
      pending = result.UnprocessedKeys?.[readModel.table]?.Keys ?? [];
    }
  }
  return ids.map((id) => rowFromItem<State>(store, found.get(idOf(id))));
}

/** DynamoDB kept leaving keys unprocessed (throttled reads, most often): the call's rows read themselves one by one. */
function unprocessed(table: string, keys: number, attempts: number): DynamoRequestError {
  return new DynamoRequestError(
    'BatchGetItem',
    new Error(`${keys} keys of ${table} were still unprocessed after ${attempts} requests: DynamoDB is throttling the reads; try again later.`),
  );
}
