import { RowAttributes, instanceKey, type StreamEvent } from '../../../store';
import type { EventRef, ParkedRow } from '../../outcome';
import type { EventFailure } from '../fold-row';
import type { RowMarks } from '../write-row';
import { errorOf, eventRef } from './policy';

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
 * that keeps it marks it seen, as any change of the parked row. A replay's write that stops at a failing
 * event (`replayFailure`) parks the row on that one itself: the event it was parked on may now be behind the
 * checkpoints (replayed or skipped), and counting the failure is a later write that a fault can keep from
 * happening.
 */
export function keptRecords(
  row: ParkingRecords,
  checkpoints: ReadonlyMap<string, number>,
  unparks: boolean,
  replayFailure: EventFailure<StreamEvent> | undefined,
): Pick<RowMarks, 'failures' | 'parked'> {
  const { failures, parked } = row;
  const failedAt = replayFailure === undefined ? {} : { event: eventRef(replayFailure.event), error: errorOf(replayFailure.cause) };
  return {
    ...(failures !== undefined && (checkpoints.get(instanceKey(failures.event)) ?? 0) < failures.event.version ? { failures } : {}),
    ...(parked !== undefined && !unparks ? { parked: { ...parked, ...failedAt, seen: parked.seen + 1 } } : {}),
  };
}
