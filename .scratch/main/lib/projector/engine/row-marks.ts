import { RowAttributes, instanceKey } from '../../store';
import type { EventRef, ParkedRow } from '../../outcome';

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
  /** Events passed over on purpose by this write, recorded with those the row had. */
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
  readonly error: { readonly name: string; readonly message: string };
  readonly event: EventRef;
}

/** A parked row as stored: `seen` counts its updates, which are conditioned on it. */
export interface ParkedRecord extends ParkedRow {
  readonly seen: number;
}

/** An event passed over on purpose (past a parked row), as the row records it. */
export interface SkippedRecord {
  readonly event: EventRef;
  readonly error: { readonly name: string; readonly message: string };
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

/** Puts the records a write keeps on its item: the skipped events (the row's and this write's), failures and parking. */
export function markRecords(item: Record<string, unknown>, read: RowRecords, marks: RowMarks): void {
  const skipped = [...read.skippedEvents, ...(marks.skipped ?? [])];
  if (skipped.length > 0) item[RowAttributes.skippedEvents] = skipped;
  if (marks.failures !== undefined) item[RowAttributes.failures] = marks.failures;
  if (marks.parked !== undefined) item[RowAttributes.parked] = marks.parked;
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
