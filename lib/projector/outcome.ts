import type { StreamEvent } from '../store';

/** An event `terminal` rejected, with the error `evolve` threw for it. */
export interface Rejected<Event> {
  readonly event: Event;
  readonly error: unknown;
}

/** A row whose events were handled: applied now, applied before, skipped or rejected. */
export interface AppliedOutcome<Event = StreamEvent, Key = Record<string, unknown>> {
  readonly status: 'applied';
  /** The row's key fields, as `key` returned them. */
  readonly key: Key;
  /** The stream id (string form) the row is fed by. */
  readonly streamId: string;
  /** The events this call applied, in version order, gap-filled ones included. Each event is in exactly one call's `applied`. */
  readonly applied: ReadonlyArray<Event>;
  /** The call's events the row already had (at or below its checkpoint). */
  readonly alreadyApplied: ReadonlyArray<Event>;
  /** Events `evolve` answered with `skipEvent`. */
  readonly skipped: ReadonlyArray<Event>;
  /** Events `terminal` rejected. */
  readonly rejected: ReadonlyArray<Rejected<Event>>;
  /** The row's checkpoint (last considered stream version) after the call; 0 for a row not created. A multi-source row's revision. */
  readonly version: number;
  /** A multi-source row's checkpoint per source instance (`<stream name>#<stream id>` → version). */
  readonly sources?: Readonly<Record<string, number>>;
  /** Positions of the call's input (events, or records for processBatch) that belong to this row. */
  readonly positions: ReadonlyArray<number>;
}

/** A row that could not be brought forward; its events are left for a redelivery. */
export interface FailedOutcome<Key = Record<string, unknown>> {
  readonly status: 'failed';
  readonly key: Key | undefined;
  readonly streamId: string;
  readonly error: unknown;
  readonly positions: ReadonlyArray<number>;
}

/** What happened to one row in one call. */
export type RowOutcome<Event = StreamEvent, Key = Record<string, unknown>> = AppliedOutcome<Event, Key> | FailedOutcome<Key>;

/** What `applyBatch` returns: an outcome per row, and the positions of events that address no row. */
export interface ApplyResult<Event = StreamEvent, Key = Record<string, unknown>> {
  readonly outcomes: ReadonlyArray<RowOutcome<Event, Key>>;
  readonly ignored: ReadonlyArray<number>;
}
