import { instanceKey } from '../../store';
import { RowAttributes } from '../../read-model';
import type { EventRef, ParkedRow } from '../../outcome';
import type { RecordedError } from '../../util';

/**
 * The records a row keeps besides its fields and checkpoints, the engine's own bookkeeping: failed
 * attempts at its next events, the record of a row set aside (parked), and events passed over on purpose.
 * Every write keeps them (it replaces the whole item) and is conditioned on them; the operations decide
 * what they hold.
 */

/** What a fold decided for a row write: each source instance's checkpoint, whether the row ends removed, its records. */
export interface RowMarks {
  readonly checkpoints: ReadonlyMap<string, number>;
  readonly removed: boolean;
  /** Every event the row records as passed over on purpose: those it had (as the fold keeps them) and this write's. */
  readonly skipped?: ReadonlyArray<SkippedRecord> | undefined;
  /** The failed attempts the row keeps counting (their event is still ahead of its checkpoint). */
  readonly failures?: FailureRecord | undefined;
  /** The row stays set aside with this record. */
  readonly parked?: ParkedRecord | undefined;
  /** The fold goes on with another write after this one (see `RowAttributes.more`). */
  readonly more?: boolean | undefined;
}

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

/** The records of a row as read. */
export interface RowRecords {
  /** Failed attempts at the row's next events, counted towards parking. */
  readonly failures: FailureRecord | undefined;
  /** The row is parked. */
  readonly parked: ParkedRecord | undefined;
  /** Events skipped on purpose past a parked row. */
  readonly skippedEvents: ReadonlyArray<SkippedRecord>;
}

/** The records a stored item holds. */
export function recordsFromItem(item: Readonly<Record<string, unknown>>): RowRecords {
  const skippedEvents = item[RowAttributes.skippedEvents];
  return {
    failures: item[RowAttributes.failures] as FailureRecord | undefined,
    parked: item[RowAttributes.parked] as ParkedRecord | undefined,
    skippedEvents: Array.isArray(skippedEvents) ? (skippedEvents as SkippedRecord[]) : [],
  };
}

/** Puts the records a write keeps on its item: the skipped events, failures and parking. */
export function markRecords(item: Record<string, unknown>, marks: RowMarks): void {
  if (marks.skipped !== undefined && marks.skipped.length > 0) item[RowAttributes.skippedEvents] = marks.skipped;
  if (marks.failures !== undefined) item[RowAttributes.failures] = marks.failures;
  if (marks.parked !== undefined) item[RowAttributes.parked] = marks.parked;
}

/** What a record's error message reads as once a rebuild re-derived the row. */
export const CLEARED_MESSAGE = '(cleared by a rebuild)';

/**
 * The records with every error message cleared, each error's name and code kept: what a rebuild keeps.
 * The messages were written by the code that threw, from events as they read then; a rebuild re-derives
 * the row from the history as it reads now (redacted, once a subject is forgotten), so a message of then
 * is not carried forward. A failure recorded after the rebuild has its message again.
 */
export function withClearedMessages(records: RowRecords): RowRecords {
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
export function recordsSkipped(
  records: RowRecords,
  event: { readonly streamName: string; readonly streamId: string; readonly version: number },
): boolean {
  const instance = instanceKey(event);
  return records.skippedEvents.some((skipped) => skipped.event.version === event.version && instanceKey(skipped.event) === instance);
}

/**
 * The parts of a write's condition on the records: counting or parking a failure changes neither
 * checkpoint nor revision, and a writer that read the row before must not wipe the record (nor apply past
 * a parked event). Adds its names and values.
 */
export function recordsCondition(read: RowRecords, names: Record<string, string>, values: Record<string, unknown>): string[] {
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
export function keptFailures(row: RowRecords, checkpoints: ReadonlyMap<string, number>): FailureRecord | undefined {
  const { failures } = row;
  return failures !== undefined && (checkpoints.get(instanceKey(failures.event)) ?? 0) < failures.event.version ? failures : undefined;
}
