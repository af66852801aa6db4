import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { asRequestError, isConditionFailure, isTransientError, pages, withSignal } from '../../dynamo';
import { AccessDeniedError, ConcurrentModificationError, DynamoRequestError, TableNotFoundError } from '../../errors';
import { RowAttributes, instanceKey, type AnyEventStream, type StreamEvent } from '../../store';
import { log, type LogLevel } from '../../util';
import type { EventRef, ParkedRow } from '../outcome';
import type { CallContext } from './call-context';
import type { Key, RowGroup } from './plan-rows';
import type { ReadRow } from './read-rows';
import { eventsAbove } from './read-gaps';
import type { RowStore } from './row-store';
import type { RowRuntime } from './runtime';
import { rowCondition, type RowMarks } from './write-row';

/*
 * Parking, in one place: the policy, the records a row keeps (failed attempts, the parked record, events
 * skipped on purpose), how every write keeps them and is conditioned on them, and the updates that count a
 * failure, park a row and note how far its events reached.
 */

/**
 * What a projection does with a row whose events keep failing: `'retry'` fails its records on every
 * delivery (the source holds the shard); `park` sets the row aside after `afterAttempts` failed attempts,
 * so the shard moves on, until `retryParked` or `skipParked`.
 */
export type PoisonPolicy = 'retry' | { readonly park: { readonly afterAttempts: number } };

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

/** The parking records of a row as read. */
export interface ParkingRecords {
  /** Failed attempts at the row's next events, counted towards parking. */
  readonly failures: FailureRecord | undefined;
  /** The row is parked. */
  readonly parked: ParkedRecord | undefined;
  /** Events skipped on purpose past a parked row. */
  readonly skippedEvents: ReadonlyArray<SkippedRecord>;
}

/** The parking records a stored item holds. */
export function parkingFromItem(item: Readonly<Record<string, unknown>>): ParkingRecords {
  const skippedEvents = item[RowAttributes.skippedEvents];
  return {
    failures: item[RowAttributes.failures] as FailureRecord | undefined,
    parked: item[RowAttributes.parked] as ParkedRecord | undefined,
    skippedEvents: Array.isArray(skippedEvents) ? (skippedEvents as SkippedRecord[]) : [],
  };
}

/** Puts the parking records a write keeps on its item: the skipped events (the row's and this write's), failures and parking. */
export function markParking(item: Record<string, unknown>, read: ParkingRecords, marks: RowMarks): void {
  const skipped = [...read.skippedEvents, ...(marks.skipped ?? [])];
  if (skipped.length > 0) item[RowAttributes.skippedEvents] = skipped;
  if (marks.failures !== undefined) item[RowAttributes.failures] = marks.failures;
  if (marks.parked !== undefined) item[RowAttributes.parked] = marks.parked;
}

/**
 * The parts of a write's condition on the parking records: counting or parking a failure changes neither
 * checkpoint nor revision, and a writer that read the row before must not wipe the record (nor apply past
 * a parked event). Adds its names and values.
 */
export function parkingCondition(read: ParkingRecords, names: Record<string, string>, values: Record<string, unknown>): string[] {
  const parts: string[] = [];
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
  return parts;
}

/**
 * The failure and parking records a write of the row keeps, since the write replaces the whole item: the
 * failed attempts while their event is still ahead of its instance's checkpoint (another source's events
 * don't reset the count), and the parked record unless this write completes a replay (`unparks`); a write
 * that keeps it marks it seen, as any change of the parked row.
 */
export function keptRecords(row: ParkingRecords, checkpoints: ReadonlyMap<string, number>, unparks: boolean): Pick<RowMarks, 'failures' | 'parked'> {
  const { failures, parked } = row;
  return {
    ...(failures !== undefined && (checkpoints.get(instanceKey(failures.event)) ?? 0) < failures.event.version ? { failures } : {}),
    ...(parked !== undefined && !unparks ? { parked: { ...parked, seen: parked.seen + 1 } } : {}),
  };
}

/**
 * The last event of each source instance that reached a parked row (its `through`), read from the
 * store: a replay of the row folds from its checkpoints up to them.
 */
export async function parkedEvents(
  streams: ReadonlyMap<string, AnyEventStream>,
  row: ReadRow<unknown>,
  call: CallContext<StreamEvent>,
): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for (const [instance, through] of Object.entries(row.parked?.through ?? {})) {
    const separator = instance.indexOf('#');
    const stream = streams.get(instance.slice(0, separator));
    if (stream === undefined) continue;
    const checkpoint = row.checkpoints.get(instance) ?? row.unattributed ?? 0;
    const last = (await eventsAbove(stream, instance.slice(separator + 1), call, checkpoint, through)).at(-1);
    if (last !== undefined) events.push(last);
  }
  return events;
}

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
 * Counts a row's failure towards parking it, when the projection parks rows and the failure is not
 * transient, and logs it (to the projection's logger and the call's). Resolves `undefined` for a failure
 * not counted, `'counted'` while the row is only counted, the parked row once it is parked, or `'lost'`
 * when the row changed since it was read.
 */
export async function countFailure(
  runtime: Pick<RowRuntime<unknown>, 'name' | 'store' | 'poison' | 'logger'>,
  call: CallContext<StreamEvent>,
  group: RowGroup<StreamEvent, Key>,
  row: ReadRow<unknown>,
  failure: { readonly event: StreamEvent; readonly error: unknown },
): Promise<ParkedRow | 'counted' | 'lost' | undefined> {
  if (runtime.poison === undefined || !countsTowardsParking(failure.error)) return undefined;
  const parked = await recordFailure(runtime.store, group, row, failure, runtime.poison.afterAttempts);
  if (parked === 'lost') return 'lost';
  const details = { projection: runtime.name, key: group.key, event: eventRef(failure.event), err: failure.error };
  if (parked === undefined) {
    logRow(runtime, call, 'warn', details, 'row failed; the attempt counts towards parking it');
    return 'counted';
  }
  logRow(runtime, call, 'error', { ...details, attempts: parked.attempts }, 'row parked: its events are set aside until retryParked or skipParked');
  return parked;
}

/** Logs what happened to a row to the projection's logger and to the call's, when the caller gave another. */
function logRow(
  runtime: Pick<RowRuntime<unknown>, 'logger'>,
  call: CallContext<StreamEvent>,
  level: LogLevel,
  details: Record<string, unknown>,
  message: string,
): void {
  log(runtime.logger, level, details, message);
  if (call.logger !== runtime.logger) log(call.logger, level, details, message);
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
