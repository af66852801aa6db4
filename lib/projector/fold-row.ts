import type { Rejected } from './outcome';
import { skipEvent, type SkipEvent } from './skip';

/** What folding one row's new events needs. */
export interface FoldInput<State, Event extends { readonly version: number }> {
  /** The stored row's state, or `undefined` when the row does not exist. */
  readonly state: State | undefined;
  /** The row's checkpoint: versions at or below it were considered already. */
  readonly checkpoint: number;
  /** The row's events above the checkpoint, in version order, without gaps among the row's own. */
  readonly events: ReadonlyArray<Event>;
  readonly initial: (event: Event) => State;
  readonly evolve: (state: State, event: Event) => State | SkipEvent | Promise<State | SkipEvent>;
  readonly terminal?: (error: unknown) => boolean;
}

/** A fold's result: the new state and checkpoint, and what became of each event. */
export interface FoldResult<State, Event> {
  readonly state: State | undefined;
  /** The new checkpoint: the last applied event, or rejected one on an existing row. */
  readonly version: number;
  readonly applied: Event[];
  readonly skipped: Event[];
  readonly rejected: Rejected<Event>[];
  /** Whether the row has to be written. */
  readonly changed: boolean;
}

/**
 * Folds a row's new events. `skipEvent` leaves the state as it was and does not move the checkpoint by
 * itself; an error `terminal` accepts rejects its event (moving the checkpoint only on an existing row,
 * so rejected events alone never create one); any other error fails the row (it propagates).
 */
export async function foldRow<State, Event extends { readonly version: number }>(input: FoldInput<State, Event>): Promise<FoldResult<State, Event>> {
  let state = input.state;
  let version = input.checkpoint;
  const applied: Event[] = [];
  const skipped: Event[] = [];
  const rejected: Rejected<Event>[] = [];
  for (const event of input.events) {
    let next: State | SkipEvent;
    try {
      next = await input.evolve(state ?? input.initial(event), event);
    } catch (error) {
      if (input.terminal?.(error) !== true) throw error;
      rejected.push({ event, error });
      if (state !== undefined) version = event.version;
      continue;
    }
    if (next === skipEvent) {
      skipped.push(event);
      continue;
    }
    state = next;
    version = event.version;
    applied.push(event);
  }
  return { state, version, applied, skipped, rejected, changed: version !== input.checkpoint };
}
