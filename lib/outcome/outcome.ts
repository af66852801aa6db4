import type { StreamEvent } from '../store';
import type { RecordedError } from '../util';

/** An input event and where it stood in the call's input (a record's position, for processBatch). */
export interface Entry<Event> {
  readonly event: Event;
  readonly position: number;
}

/** What a call's rows add up to, for metrics. */
export interface ApplyStats {
  /** Row writes (conditional Puts or transactions) that went through. */
  rowsWritten: number;
  /** Strongly consistent reads of a stream to fill a gap. */
  gapReads: number;
  /** Row writes that lost to a concurrent writer (and were tried again). */
  lostRaces: number;
}

/** An event `terminal` rejected, with the error `evolve` threw for it. */
export interface Rejected<Event> {
  readonly event: Event;
  readonly error: unknown;
}

/** What every row whose events were handled reports, whatever feeds it. */
interface HandledRow<Event, Key> {
  readonly status: 'applied';
  /** The row's key fields, as `key` returned them. */
  readonly key: Key;
  /** The events this call applied, in version order, gap-filled ones included. Each event is in exactly one call's `applied`. */
  readonly applied: ReadonlyArray<Event>;
  /** The call's events the row already had (at or below its checkpoint). */
  readonly alreadyApplied: ReadonlyArray<Event>;
  /** Events `evolve` answered with `skipEvent`, or that a removed row ignored. */
  readonly skipped: ReadonlyArray<Event>;
  /** Events `terminal` rejected. */
  readonly rejected: ReadonlyArray<Rejected<Event>>;
  /** The row's revision after the call where the projection keeps one (`revision`, an outbox, multi-source rows). */
  readonly revision: number | undefined;
  /** Positions of the call's input (events, or records for processBatch) that belong to this row. */
  readonly positions: ReadonlyArray<number>;
}

/** A single-source row whose events were handled: applied now, applied before, skipped or rejected. */
export interface AppliedOutcome<Event = StreamEvent, Key = Record<string, unknown>> extends HandledRow<Event, Key> {
  /** The stream id (string form) of the one stream instance feeding the row. */
  readonly streamId: string;
  /** The row's checkpoint (last considered version of its stream instance) after the call; 0 for a row not created. */
  readonly version: number;
}

/** A multi-source row whose events were handled. */
export interface MultiSourceAppliedOutcome<Event = StreamEvent, Key = Record<string, unknown>> extends HandledRow<Event, Key> {
  /** The row's checkpoint per source instance (`<stream name>#<stream id>` → version) after the call. */
  readonly sources: Readonly<Record<string, number>>;
}

/** A row that could not be brought forward; its events are left for a redelivery. */
export interface FailedOutcome<Key = Record<string, unknown>, Event = StreamEvent> {
  readonly status: 'failed';
  readonly key: Key | undefined;
  /** The stream id of the row's first event in the call. */
  readonly streamId: string;
  readonly error: unknown;
  /**
   * Events this call wrote to the row before the failure: those before the event `evolve` threw on (or
   * `toItem` refused), and earlier writes of a fold split over several. Like an applied outcome's, they
   * appear in no other call's `applied` (a redelivery finds them `alreadyApplied`): side effects hang on
   * every outcome's `applied`, whatever its status.
   */
  readonly applied: ReadonlyArray<Event>;
  readonly positions: ReadonlyArray<number>;
}

/** An event named by its identity, as a parked row records it. */
export interface EventRef {
  readonly streamName: string;
  readonly streamId: string;
  readonly version: number;
  readonly type: string;
}

/** The identity of an event, as parked rows and skipped events record it. */
export function eventRef(event: StreamEvent): EventRef {
  return { streamName: event.streamName, streamId: event.streamId, version: event.version, type: event.type };
}

/**
 * A parked row: the event that kept failing, with the error and the attempts, and how far later events
 * addressing the row reached, per source instance (`<stream>#<id>` → version). Those events are in the
 * store, in order: `retryParked` applies them from the row's checkpoint.
 */
export interface ParkedRow<Key = Record<string, unknown>> {
  readonly key: Key;
  readonly event: EventRef;
  /** What failed: the error's name, its code when it has one, and its message cut short (cleared by a rebuild). */
  readonly error: RecordedError;
  readonly attempts: number;
  readonly firstFailureAt: string;
  readonly lastFailureAt: string;
  readonly parkedAt: string;
  readonly through: Readonly<Record<string, number>>;
}

/** A row that is parked: its events are set aside (reported done, so the shard moves on) until `retryParked`. */
export interface ParkedOutcome<Key = Record<string, unknown>, Event = StreamEvent> {
  readonly status: 'parked';
  readonly key: Key;
  readonly streamId: string;
  readonly parked: ParkedRow<Key>;
  /** Events this call wrote to the row before it was parked (see `FailedOutcome.applied`): in no other call's `applied`. */
  readonly applied: ReadonlyArray<Event>;
  /**
   * The call's events addressing the row that it did not apply and the row did not have, in version order:
   * set aside in the store until `retryParked` (or `skipParked`). Other events of the same records,
   * addressing other rows, are not.
   */
  readonly setAside: ReadonlyArray<Event>;
  readonly positions: ReadonlyArray<number>;
}

/** What happened to one single-source row in one call. */
export type RowOutcome<Event = StreamEvent, Key = Record<string, unknown>> =
  AppliedOutcome<Event, Key> | FailedOutcome<Key, Event> | ParkedOutcome<Key, Event>;

/** What happened to one multi-source row in one call. */
export type MultiSourceRowOutcome<Event = StreamEvent, Key = Record<string, unknown>> =
  MultiSourceAppliedOutcome<Event, Key> | FailedOutcome<Key, Event> | ParkedOutcome<Key, Event>;

/** What `applyBatch` returns: an outcome per row, and the events that address no row. */
export interface ApplyResult<Event = StreamEvent, Key = Record<string, unknown>, Outcome = RowOutcome<Event, Key>> {
  readonly outcomes: ReadonlyArray<Outcome>;
  /** Positions of the events that address no row, in order (a position once per such event). */
  readonly ignored: ReadonlyArray<number>;
  /** The events that address no row, in the call's order: those `ignored` gives the positions of. */
  readonly ignoredEvents: ReadonlyArray<Event>;
  /** What the call cost: row writes, gap reads, lost races. */
  readonly stats: Readonly<ApplyStats>;
}
