import type { Rejected } from '../../outcome';
import { removeRow, skipEvent, type RemoveRow, type SkipEvent } from '../skip';

/** What `evolve` may answer: the next state, `skipEvent`, or `removeRow`. */
export type Evolved<State> = State | SkipEvent | RemoveRow;

/** What folding one row's new events needs. */
export interface FoldInput<State, Event extends { readonly version: number }> {
  /** The stored row's state, or `undefined` when the row does not exist or was removed. */
  readonly state: State | undefined;
  /** The row is a tombstone. */
  readonly removed?: boolean | undefined;
  /** The row's checkpoint: versions at or below it were considered already. */
  readonly checkpoint: number;
  /** The row's events above the checkpoint, in order, without gaps among the row's own. */
  readonly events: ReadonlyArray<Event>;
  readonly initial: (event: Event) => State;
  readonly evolve: (state: State, event: Event) => Evolved<State> | Promise<Evolved<State>>;
  readonly terminal?: ((error: unknown) => boolean) | undefined;
  /** Whether an event may recreate a removed row (from `initial`). @defaultValue never */
  readonly recreate?: ((event: Event) => boolean) | undefined;
  /**
   * Asked before each event is applied, with the state right after it (`undefined` once removed): `false`
   * stops the fold before that event, leaving it and the rest for another write.
   */
  readonly accept?: ((event: Event, state: State | undefined) => boolean) | undefined;
}

/** A fold's result: the new state and checkpoint, and what became of each event. */
export interface FoldResult<State, Event> {
  /** The state to write; `undefined` for a row that was never created or ends removed. */
  readonly state: State | undefined;
  /** The row ends removed: write a tombstone (with `lastState`'s fields). */
  readonly removed: boolean;
  /** The last state before the removal, for the tombstone's fields. */
  readonly lastState: State | undefined;
  /** The new checkpoint: the last applied event, or rejected one on an existing row. */
  readonly version: number;
  readonly applied: Event[];
  readonly skipped: Event[];
  readonly rejected: Rejected<Event>[];
  /** Whether the row has to be written. */
  readonly changed: boolean;
  /** `accept` stopped the fold before an event: it and the events after it are left for another write. */
  readonly stopped: boolean;
  /** The event the fold stopped before (with `stopped`): the one `accept` refused, or the one that failed. */
  readonly stoppedAt?: Event;
}

/**
 * Folds a row's new events. `skipEvent` leaves the state as it was and does not move the checkpoint by
 * itself; `removeRow` ends the row (a tombstone), after which only events `recreate` accepts start it
 * again from `initial`; an error `terminal` accepts rejects its event (moving the checkpoint only on a
 * live row, so rejected events alone never create one); any other error fails the row: it propagates as an
 * {@link EventFailure} naming the event.
 * `accept` can stop the fold before an event, to split a long fold over several writes.
 */
export async function foldRow<State, Event extends { readonly version: number }>(input: FoldInput<State, Event>): Promise<FoldResult<State, Event>> {
  let state = input.state;
  let removed = input.removed === true;
  let lastState: State | undefined;
  let version = input.checkpoint;
  const applied: Event[] = [];
  const skipped: Event[] = [];
  const rejected: Rejected<Event>[] = [];
  // What was folded before the event the fold stops at: handed over with a failure, so it can still be written.
  const sofar = (stoppedAt: Event): FoldResult<State, Event> => ({
    state,
    removed,
    lastState,
    version,
    applied,
    skipped,
    rejected,
    changed: version !== input.checkpoint,
    stopped: true,
    stoppedAt,
  });
  const attempt = <T>(event: Event, run: () => T): T => {
    try {
      return run();
    } catch (error) {
      throw new EventFailure(event, error, sofar(event));
    }
  };
  for (const event of input.events) {
    if (removed && state === undefined && !attempt(event, () => input.recreate?.(event) === true)) {
      skipped.push(event); // a removed row ignores events until one recreates it
      continue;
    }
    let next: Evolved<State>;
    try {
      next = await input.evolve(state ?? input.initial(event), event);
    } catch (error) {
      if (input.terminal?.(error) !== true) throw new EventFailure(event, error, sofar(event));
      rejected.push({ event, error });
      if (state !== undefined) version = event.version;
      continue;
    }
    if (next === skipEvent) {
      skipped.push(event);
      continue;
    }
    const after = next === removeRow ? undefined : next;
    if (input.accept !== undefined && !attempt(event, () => (input.accept as NonNullable<typeof input.accept>)(event, after))) {
      return sofar(event);
    }
    if (next === removeRow) {
      lastState = state ?? input.initial(event);
      state = undefined;
      removed = true;
    } else {
      state = next;
      removed = false;
    }
    version = event.version;
    applied.push(event);
  }
  return { state, removed, lastState, version, applied, skipped, rejected, changed: version !== input.checkpoint, stopped: false };
}

/** An event that failed, and why. */
export interface FailedEvent<Event> {
  readonly event: Event;
  readonly error: unknown;
}

/**
 * Why a fold stopped: the error of an event (from `evolve`, `initial`, `recreate` or `accept`), with the
 * event and, for a fold, what it had folded before it.
 */
export class EventFailure<Event> extends Error {
  constructor(
    readonly event: Event,
    override readonly cause: unknown,
    readonly before?: FoldResult<unknown, Event>,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}
