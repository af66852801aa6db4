import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { asRequestError, isConditionFailure, isTransientError, pages, withSignal } from '../../dynamo';
import { AccessDeniedError, ConcurrentModificationError, DynamoRequestError, TableNotFoundError } from '../../errors';
import { RowAttributes, instanceKey, type StreamEvent } from '../../store';
import type { EventRef, ParkedRow } from '../outcome';
import type { RowGroup } from './plan-rows';
import { rowCondition, type FailureRecord, type ParkedRecord, type ReadRow, type RowStore } from './read-rows';

type Key = Readonly<Record<string, unknown>>;

/**
 * What a projection does with a row whose events keep failing: `'retry'` fails its records on every
 * delivery (the source holds the shard); `park` sets the row aside after `afterAttempts` failed attempts,
 * so the shard moves on, until `retryParked` or `skipParked`.
 */
export type PoisonPolicy = 'retry' | { readonly park: { readonly afterAttempts: number } };

/**
 * Whether a row's failure counts towards parking it. Transient failures (throttling, server errors,
 * timeouts, lost races) never do: they pass by themselves. Nor does a missing or refused table: that is
 * the deployment's fault, not the row's, and parking would set aside every row until it is fixed.
 */
export function countsTowardsParking(error: unknown): boolean {
  if (error instanceof ConcurrentModificationError || error instanceof TableNotFoundError || error instanceof AccessDeniedError) return false;
  if (error instanceof DynamoRequestError) return !isTransientError(error.cause);
  return !isTransientError(error);
}

/** The identity of an event, as parked rows and skipped events record it. */
export function eventRef(event: StreamEvent): EventRef {
  return { streamName: event.streamName, streamId: event.streamId, version: event.version, type: event.type };
}

function errorOf(error: unknown): { name: string; message: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
}

/**
 * Counts a failed attempt on the row, and parks it once it reached `afterAttempts` (or, when it is parked
 * already, counts the attempt on the parked record, which then names the event that failed). A row that does not exist gets a stub to hold the
 * count. Resolves the row as parked, `undefined` while it is only counted, or `'lost'` when the row changed
 * since it was read.
 */
export async function recordFailure(
  store: RowStore,
  group: RowGroup<StreamEvent, Key>,
  row: ReadRow<unknown>,
  failure: { readonly event: StreamEvent; readonly error: unknown },
  afterAttempts: number,
): Promise<ParkedRow | undefined | 'lost'> {
  const now = new Date().toISOString();
  const previous: FailureRecord | undefined = row.parked ?? row.failures;
  const attempts = (previous?.attempts ?? 0) + 1;
  const record: FailureRecord = {
    attempts,
    firstFailureAt: previous?.firstFailureAt ?? now,
    lastFailureAt: now,
    error: errorOf(failure.error),
    // The event that failed this time: a replay that got past the parked event stays parked on the next.
    event: eventRef(failure.event),
  };
  const parked: ParkedRecord | undefined =
    row.parked !== undefined || attempts >= afterAttempts
      ? {
          ...record,
          key: group.key,
          parkedAt: row.parked?.parkedAt ?? now,
          through: row.parked?.through ?? throughOf(group),
          seen: (row.parked?.seen ?? 0) + 1,
        }
      : undefined;
  const { condition, names, values } = rowCondition(store, row);
  const sets = parked === undefined ? ['#failures = :record'] : ['#parked = :record'];
  // Names the written record (already named when the row's condition reads it).
  if (parked === undefined || row.failures !== undefined) names['#failures'] = RowAttributes.failures;
  if (parked !== undefined) names['#parked'] = RowAttributes.parked;
  values[':record'] = parked ?? record;
  const remove = parked !== undefined && row.failures !== undefined ? ' REMOVE #failures' : '';
  if (!row.exists) {
    // No row yet: a stub holds the count, hidden from reads.
    names['#stub'] = RowAttributes.stub;
    names['#model'] = RowAttributes.model;
    values[':true'] = true;
    values[':model'] = store.readModel.name;
    sets.push('#stub = :true', '#model = :model');
  }
  const written = await update(store, group.key, `SET ${sets.join(', ')}${remove}`, condition, names, values);
  if (!written) return 'lost';
  return parked === undefined ? undefined : withoutSeen(parked);
}

/**
 * Records how far the events of a parked row reached (the highest version of each source instance that
 * addressed it), so that `retryParked` applies them all. Resolves the parked row, or `'lost'`.
 */
export async function noteParkedEvents(store: RowStore, group: RowGroup<StreamEvent, Key>, parked: ParkedRecord): Promise<ParkedRow | 'lost'> {
  const through = { ...parked.through };
  let grew = false;
  for (const [instance, version] of Object.entries(throughOf(group))) {
    if (version > (through[instance] ?? 0)) {
      through[instance] = version;
      grew = true;
    }
  }
  if (!grew) return withoutSeen(parked);
  const written = await update(
    store,
    group.key,
    'SET #parked.#through = :through, #parked.#seen = :next',
    '#parked.#seen = :seen',
    { '#parked': RowAttributes.parked, '#through': 'through', '#seen': 'seen' },
    { ':through': through, ':seen': parked.seen, ':next': parked.seen + 1 },
  );
  return written ? withoutSeen({ ...parked, through }) : 'lost';
}

/** The highest version of each source instance among a call's events for a row. */
function throughOf(group: RowGroup<StreamEvent, Key>): Record<string, number> {
  const through: Record<string, number> = {};
  for (const event of group.events) through[instanceKey(event)] = Math.max(through[instanceKey(event)] ?? 0, event.version);
  return through;
}

function withoutSeen(parked: ParkedRecord): ParkedRow {
  const { seen: _seen, ...row } = parked;
  return row;
}

/** Every parked row of the model (a Scan of its table). */
export async function* parkedRows(store: RowStore, signal?: AbortSignal): AsyncGenerator<ParkedRow> {
  const { readModel } = store;
  const scan = pages('Scan', readModel.table, (start) =>
    withSignal(store.documents, signal).send(
      new ScanCommand({
        TableName: readModel.table,
        ConsistentRead: true,
        FilterExpression: '#model = :model AND attribute_exists(#parked)',
        ProjectionExpression: '#parked',
        ExpressionAttributeNames: { '#model': RowAttributes.model, '#parked': RowAttributes.parked },
        ExpressionAttributeValues: { ':model': readModel.name },
        ExclusiveStartKey: start,
      }),
    ),
  );
  for await (const items of scan) for (const item of items) yield withoutSeen(item[RowAttributes.parked] as ParkedRecord);
}

async function update(
  store: RowStore,
  key: Key,
  expression: string,
  condition: string,
  names: Record<string, string>,
  values: Record<string, unknown>,
): Promise<boolean> {
  try {
    await store.documents.send(
      new UpdateCommand({
        TableName: store.readModel.table,
        Key: store.readModel.keyOf(key),
        UpdateExpression: expression,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw asRequestError('UpdateItem', store.readModel.table, error);
  }
}
