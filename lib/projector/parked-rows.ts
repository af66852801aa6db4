import type { StreamEvent } from '../store';
import type { EventRef, MultiSourceRowOutcome, ParkedRow, RowOutcome } from './outcome';
import { parkedRows } from './parking';
import { applyRow } from './row-engine';
import { rowIdOf, type RowRuntime } from './runtime';
import { callContext } from './row-plan';
import { readRow, type ReadRow } from './row-store';
import { parkedEvents } from './row-write';

type Key = Readonly<Record<string, unknown>>;
type Outcome = RowOutcome | MultiSourceRowOutcome;

/** Every parked row of a projection's model, in no particular order (a Scan). */
export function listParked(runtime: RowRuntime<unknown>, signal?: AbortSignal): AsyncGenerator<ParkedRow> {
  return parkedRows(runtime.store, signal);
}

/**
 * Applies a parked row's events again, from its checkpoint through the last event that reached it while
 * parked, in order (after a fix was deployed). On success the row is written and unparked; a failure
 * counts one more attempt on the parked record and the row stays parked. With `skip`, that event is left
 * out on purpose (`'failing'`: the event the row was parked for): its source instance's checkpoint moves
 * past it and the row records it. Resolves `undefined` for a row that is not parked; never rejects for
 * the row's error (a failed outcome).
 */
export async function replayParked<State>(runtime: RowRuntime<State>, key: Key, skip?: EventRef | 'failing'): Promise<Outcome | undefined> {
  const call = callContext<StreamEvent>();
  let row: ReadRow<State>;
  let events: StreamEvent[];
  try {
    row = await readRow<State>(runtime.store, key);
    events = await parkedEvents(runtime.streams, row, call);
  } catch (error) {
    // The row's own outcome, like any other failure: a caller replaying many rows keeps the others' outcomes.
    return { status: 'failed', key, streamId: '', error, applied: [], positions: [] };
  }
  const parked = row.parked;
  if (parked === undefined) return undefined;
  const group = { rowId: rowIdOf(runtime, key), key, streamId: parked.event.streamId, events, positions: [] as number[] };
  const skipping = skip === 'failing' ? parked.event : skip;
  const outcome = await applyRow(
    runtime,
    group,
    call,
    { mode: 'apply', unpark: true, ...(skipping === undefined ? {} : { skip: { event: skipping, error: parked.error } }) },
    row,
  );
  return outcome as Outcome;
}

/** Replays every parked row (or the one of `key`), one after another; resolves an outcome per row. */
export async function retryParkedRows<State>(runtime: RowRuntime<State>, key?: Key): Promise<Outcome[]> {
  const keys: Key[] = [];
  if (key !== undefined) keys.push(key);
  else for await (const parked of listParked(runtime as RowRuntime<unknown>)) keys.push(parked.key);
  const outcomes: Outcome[] = [];
  for (const each of keys) {
    const outcome = await replayParked(runtime, each);
    if (outcome !== undefined) outcomes.push(outcome);
  }
  return outcomes;
}
