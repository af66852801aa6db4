import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { pages, withSignal } from '../../dynamo';
import { eventRef, type ParkedRow } from '../../outcome';
import { instanceKey, type StreamEvent } from '../../store';
import { RowAttributes } from '../../read-model';
import { log, recordedError, type LogLevel } from '../../util';
import { writeRecords, type CallContext, type Key, type ReadRow, type RowGroup, type RowRuntime, type RowStore } from '../engine';
import { countsTowardsParking, type ParkingPolicy } from './policy';
import { parkingRecords, type FailureRecord, type ParkedRecord } from './records';
import { Attr, SpanEvents, errorAttributes, keyText, spanEvent } from '../../telemetry';

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
  const { failures, parked: wasParked } = parkingRecords(row.records);
  const previous: FailureRecord | undefined = wasParked ?? failures;
  const attempts = (previous?.attempts ?? 0) + 1;
  const record: FailureRecord = {
    attempts,
    firstFailureAt: previous?.firstFailureAt ?? now,
    lastFailureAt: now,
    error: recordedError(failure.error),
    // The event that failed this time: a replay that got past the parked event stays parked on the next.
    event: eventRef(failure.event),
  };
  const parked: ParkedRecord | undefined =
    wasParked !== undefined || attempts >= afterAttempts
      ? {
          ...record,
          key: group.key,
          parkedAt: wasParked?.parkedAt ?? now,
          // Parked already (by a concurrent call, since this one read the row): this call's events are set
          // aside too, so the record must reach them, or `retryParked` would never apply them.
          through: reachedThrough(wasParked?.through ?? {}, group).through,
          seen: (wasParked?.seen ?? 0) + 1,
        }
      : undefined;
  // A row that does not exist yet gets a stub to hold the count, hidden from reads.
  const records =
    parked === undefined
      ? { [RowAttributes.failures]: record }
      : { [RowAttributes.parked]: parked, ...(failures === undefined ? {} : { [RowAttributes.failures]: undefined }) };
  if (!(await writeRecords(store, row, group.key, records))) return 'lost';
  return parked === undefined ? undefined : withoutSeen(parked);
}

/**
 * Counts a row's failure towards parking it, when the projection parks rows and the failure is not
 * transient, and logs it (to the projection's logger and the call's). Resolves `undefined` for a failure
 * not counted, `'counted'` while the row is only counted, the parked row once it is parked, or `'lost'`
 * when the row changed since it was read.
 */
export async function countFailure(
  runtime: Pick<RowRuntime<unknown>, 'name' | 'store'> & ParkingPolicy,
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
  spanEvent(SpanEvents.rowParked, {
    [Attr.projection]: runtime.name,
    [Attr.rowKey]: keyText(group.key),
    [Attr.attempt]: parked.attempts,
    ...errorAttributes(failure.error),
  });
  return parked;
}

/** Logs what happened to a row to the projection's logger and to the call's, when the caller gave another. */
function logRow(
  runtime: Pick<ParkingPolicy, 'logger'>,
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
 * addressed it), so that `retryParked` applies them all. Resolves the parked row, or `'lost'` when the row
 * changed since it was read.
 */
export async function noteParkedEvents(
  store: RowStore,
  group: RowGroup<StreamEvent, Key>,
  row: ReadRow<unknown>,
  parked: ParkedRecord,
): Promise<ParkedRow | 'lost'> {
  const { through, grew } = reachedThrough(parked.through, group);
  if (!grew) return withoutSeen(parked);
  const noted = { ...parked, through, seen: parked.seen + 1 };
  return (await writeRecords(store, row, group.key, { [RowAttributes.parked]: noted })) ? withoutSeen(noted) : 'lost';
}

/** A parked row's `through` extended to a call's events for it: the highest version of each source instance; `grew` when it changed. */
function reachedThrough(
  through: Readonly<Record<string, number>>,
  group: RowGroup<StreamEvent, Key>,
): { through: Record<string, number>; grew: boolean } {
  const reached = { ...through };
  let grew = false;
  for (const event of group.events) {
    const instance = instanceKey(event);
    if (event.version > (reached[instance] ?? 0)) {
      reached[instance] = event.version;
      grew = true;
    }
  }
  return { through: reached, grew };
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
