import { instanceKey, type StreamEvent } from '../../store';
import { RowAttributes } from '../../read-model';
import type { EventRef, ParkedRow } from '../../outcome';
import type { RecordedError } from '../../util';
import type { ReadRow, RecordStrategy, RowRecords } from '../engine';

/**
 * What parking keeps on a row besides its fields and checkpoints: failed attempts at its next events, the
 * record of a row set aside (parked), and events passed over on purpose. The engine carries them on every
 * write and conditions every write on them, as this strategy says ({@link rowRecords}); parking's updates
 * write them through the engine's one write path (`writeRecords`).
 */

/** Failed attempts at a row's next events, as stored on the row. */
export interface FailureRecord {
  readonly attempts: number;
  readonly firstFailureAt: string;
  readonly lastFailureAt: string;
  readonly error: RecordedError;
  readonly event: EventRef;
}

/** A parked row as stored: `seen` counts its updates, which are conditioned on it. */
export interface ParkedRecord extends ParkedRow {
  readonly seen: number;
}

/** An event passed over on purpose (past a parked row), as the row records it. */
export interface SkippedRecord {
  readonly event: EventRef;
  readonly error: RecordedError;
  readonly skippedAt: string;
}

/** Parking's records of a row. */
export interface ParkingRecords {
  /** Failed attempts at the row's next events, counted towards parking. */
  readonly failures: FailureRecord | undefined;
  /** The row is parked. */
  readonly parked: ParkedRecord | undefined;
  /** Events skipped on purpose past a parked row. */
  readonly skippedEvents: ReadonlyArray<SkippedRecord>;
}

/** Parking's records among a row's records (as read: see `ReadRow.records`). */
export function parkingRecords(records: RowRecords): ParkingRecords {
  const skippedEvents = records[RowAttributes.skippedEvents];
  return {
    failures: records[RowAttributes.failures] as FailureRecord | undefined,
    parked: records[RowAttributes.parked] as ParkedRecord | undefined,
    skippedEvents: Array.isArray(skippedEvents) ? (skippedEvents as SkippedRecord[]) : [],
  };
}

/** The parked record of a row as read, or `undefined` when it is not parked. */
export function parkedOf(row: Pick<ReadRow<unknown>, 'records'>): ParkedRecord | undefined {
  return parkingRecords(row.records).parked;
}

/**
 * The records a write of the row keeps, since it replaces the whole item: the skipped events, the failed
 * attempts while their event is ahead of its checkpoint, and the parked record, `seen` once more (every
 * write of a parked row is one of its updates).
 */
export function recordsKept(records: ParkingRecords, checkpoints: ReadonlyMap<string, number>): RowRecords {
  const { skippedEvents, parked } = records;
  return {
    [RowAttributes.skippedEvents]: skippedEvents.length > 0 ? skippedEvents : undefined,
    [RowAttributes.failures]: keptFailures(records, checkpoints),
    [RowAttributes.parked]: parked === undefined ? undefined : { ...parked, seen: parked.seen + 1 },
  };
}

/**
 * How every projection's rows keep parking's records: a fold passes over the events a row records as
 * skipped, and its write keeps the records (see {@link recordsKept}). A rebuild ({@link rebuiltRecords})
 * and a replay (`parking/replay.ts`) keep them their own way.
 */
export const rowRecords: RecordStrategy = {
  attributes: [RowAttributes.failures, RowAttributes.parked, RowAttributes.skippedEvents],
  condition: (read, names, values) => recordsCondition(parkingRecords(read), names, values),
  passesOver: (read, event) => recordsSkipped(parkingRecords(read), event),
  afterFold: (read, end) => recordsKept(parkingRecords(read), end.checkpoints),
};

/**
 * The records as a rebuild keeps them: every error message cleared, each error's name and code kept. The
 * messages were written by the code that threw, from events as they read then; a rebuild re-derives the
 * row from the history as it reads now (redacted, once a subject is forgotten), so a message of then is
 * not carried forward. A failure recorded after the rebuild has its message again.
 */
export const rebuiltRecords: RecordStrategy = {
  ...rowRecords,
  afterFold: (read, end) => recordsKept(withClearedMessages(parkingRecords(read)), end.checkpoints),
};

/** What a record's error message reads as once a rebuild re-derived the row. */
const CLEARED_MESSAGE = '(cleared by a rebuild)';

function withClearedMessages(records: ParkingRecords): ParkingRecords {
  const cleared = <Record extends { readonly error: RecordedError }>(record: Record): Record => ({
    ...record,
    error: { ...record.error, message: CLEARED_MESSAGE },
  });
  return {
    failures: records.failures === undefined ? undefined : cleared(records.failures),
    parked: records.parked === undefined ? undefined : cleared(records.parked),
    skippedEvents: records.skippedEvents.map(cleared),
  };
}

/** Whether the row records `event` as passed over on purpose: no fold applies it (a rebuild passes over it again). */
function recordsSkipped(records: ParkingRecords, event: StreamEvent): boolean {
  const instance = instanceKey(event);
  return records.skippedEvents.some((skipped) => skipped.event.version === event.version && instanceKey(skipped.event) === instance);
}

/**
 * The parts of a write's condition on the records: counting or parking a failure changes neither
 * checkpoint nor revision, and a writer that read the row before must not wipe the record (nor apply past
 * a parked event). Adds its names and values.
 */
function recordsCondition(read: ParkingRecords, names: Record<string, string>, values: Record<string, unknown>): string[] {
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
 * The failed attempts a write of the row keeps, since the write replaces the whole item: while their event
 * is still ahead of its instance's checkpoint (another source's events don't reset the count).
 */
function keptFailures(row: ParkingRecords, checkpoints: ReadonlyMap<string, number>): FailureRecord | undefined {
  const { failures } = row;
  return failures !== undefined && (checkpoints.get(instanceKey(failures.event)) ?? 0) < failures.event.version ? failures : undefined;
}
