import { abortReason } from '../../dynamo';
import { ValidationError } from '../../errors';
import { eventRef, type EventRef, type MultiSourceRowOutcome, type ParkedRow, type RowOutcome } from '../../outcome';
import { instanceKey, type AnyEventStream, type StreamEvent } from '../../store';
import { log, recordedError, type RecordedError } from '../../util';
import {
  applyRow,
  callContext,
  eventsAbove,
  forward,
  readRow,
  rowIdOf,
  withCallSignal,
  withRecords,
  type CallContext,
  type Key,
  type Operation,
  type ReadRow,
  type RecordStrategy,
  type RowBasics,
} from '../engine';
import type { ParkingRuntime } from './policy';
import { parkedOf, parkingRecords, recordsKept, rowRecords, type ParkedRecord } from './records';
import { countFailure, parkedRows } from './updates';
import { Attr, inSpan, keyText, projectionSpan } from '../../telemetry';

type Outcome = RowOutcome | MultiSourceRowOutcome;

/** Every parked row of a projection's model, in no particular order (a Scan). */
export function listParked(runtime: RowBasics, signal?: AbortSignal): AsyncGenerator<ParkedRow> {
  return parkedRows(runtime.store, signal);
}

/** An event a replay skips on purpose, and the error the row records it with. */
interface Skip {
  readonly event: EventRef;
  readonly error: RecordedError;
}

/**
 * The replay of a parked row: each attempt folds from its checkpoints through the last event that reached
 * it, also events noted since the replay began. The row is written even when nothing moved (its records,
 * see {@link replayedRecords}, set it free once the fold got through). The failure is counted on the parked
 * record; the row's outcome is failed, never parked. A row no longer parked is brought forward as a
 * delivery would.
 */
function replaying<State>(projection: ParkingRuntime<State>): Operation<State> {
  return {
    ...forward<State>(),
    writesUnchanged: (row) => parkedOf(row) !== undefined,
    prepare: async ({ runtime, call, group, row }) =>
      parkedOf(row) === undefined ? { fold: group } : { fold: { ...group, events: await parkedEvents(runtime.streams, row, call) } },
    failed: async ({ runtime, call, group, row }, failure) => {
      const policy = { name: runtime.name, store: runtime.store, poison: projection.poison, logger: projection.logger };
      return (await countFailure(policy, call, group, row, failure)) === 'lost' ? 'lost' : 'failed';
    },
  };
}

/**
 * A parked row's records as its replay keeps them: the event to skip (`skip`) is passed over on purpose and
 * recorded once the fold got past it; the row is set free once the fold got through, and stays parked,
 * on the failing event, when the fold stops at one (the event it was parked on may be behind the
 * checkpoints by now, and counting the failure is a later write that a fault can keep from happening).
 */
function replayedRecords(skip: Skip | undefined): RecordStrategy {
  const skips = (event: { readonly streamName: string; readonly streamId: string; readonly version: number }) =>
    skip !== undefined && skip.event.version === event.version && instanceKey(skip.event) === instanceKey(event);
  return {
    ...rowRecords,
    passesOver: (read, event) => skips(event) || rowRecords.passesOver(read, event),
    afterFold: (read, { checkpoints, failure, more, passedOver }) => {
      const records = parkingRecords(read);
      const skipped = skip !== undefined && passedOver.some(skips) ? [{ ...skip, skippedAt: new Date().toISOString() }] : [];
      const parked: ParkedRecord | undefined =
        records.parked === undefined || failure === undefined
          ? more
            ? records.parked
            : undefined
          : { ...records.parked, event: eventRef(failure.event), error: recordedError(failure.error) };
      return recordsKept({ ...records, parked, skippedEvents: [...records.skippedEvents, ...skipped] }, checkpoints);
    },
  };
}

/**
 * Applies a parked row's events again, from its checkpoint through the last event that reached it while
 * parked, in order (after a fix was deployed). On success the row is written and unparked; a failure
 * counts one more attempt on the parked record and the row stays parked, on the event that failed (what
 * came before it is written). With `skip`, that event is left out on purpose (`'failing'`: the event the
 * row is parked on): its source instance's checkpoint moves past it and the row records it. Resolves
 * `undefined` for a row that is not parked; never rejects for the row's error (a failed outcome). Rejects
 * with a `ValidationError` for a key that is none, or an event to skip that the parked row does not hold.
 */
export async function replayParked<State>(
  projection: ParkingRuntime<State>,
  key: Key,
  skip?: EventRef | 'failing',
  signal?: AbortSignal,
): Promise<Outcome | undefined> {
  requireRowKey(projection, key);
  // Aborted already: no request starts.
  if (signal?.aborted === true) throw abortReason(signal);
  const attributes = { [Attr.rowKey]: keyText(key), [Attr.replaySkip]: skip !== undefined };
  return inSpan(projectionSpan('replay', projection.name, attributes), () => replayRow(projection, key, skip, signal));
}

async function replayRow<State>(
  projection: ParkingRuntime<State>,
  key: Key,
  skip: EventRef | 'failing' | undefined,
  signal: AbortSignal | undefined,
): Promise<Outcome | undefined> {
  const signalled = withCallSignal(projection, signal);
  const call = callContext<StreamEvent>(undefined, signal);
  let row: ReadRow<State>;
  let events: StreamEvent[];
  try {
    row = await readRow<State>(signalled.store, key);
    events = await parkedEvents(signalled.streams, row, call);
  } catch (error) {
    // The row's own outcome, like any other failure: a caller replaying many rows keeps the others' outcomes.
    return { status: 'failed', key, streamId: '', error, applied: [], positions: [] };
  }
  const parked = parkedOf(row);
  if (parked === undefined) return undefined;
  const group = { rowId: rowIdOf(signalled, key), key, streamId: parked.event.streamId, events, positions: [] as number[] };
  if (skip !== undefined && skip !== 'failing') requireHeld(signalled, row, group.rowId, call, skip);
  const skipping = skip === 'failing' ? parked.event : skip;
  // The replay keeps the row's records its own way: it runs with a record strategy of its own.
  const runtime = withRecords(signalled, replayedRecords(skipping === undefined ? undefined : { event: skipping, error: parked.error }));
  const outcome = await applyRow({ runtime, group, call, operation: replaying(projection), prefetched: row });
  if (outcome.status === 'applied') {
    const details = { projection: runtime.name, key, applied: outcome.applied.length, ...(skipping === undefined ? {} : { skipped: skipping }) };
    log(projection.logger, 'info', details, 'parked row replayed');
  }
  return outcome;
}

/**
 * Replays every parked row (or the one of `key`), one after another; resolves an outcome per row. Once
 * `signal` aborted no request starts (no further row, nor the listing): the call rejects with its reason.
 */
export async function retryParkedRows<State>(runtime: ParkingRuntime<State>, key?: Key, signal?: AbortSignal): Promise<Outcome[]> {
  if (key !== undefined) requireRowKey(runtime, key);
  if (signal?.aborted === true) throw abortReason(signal);
  const keys: Key[] = [];
  if (key !== undefined) keys.push(key);
  else for await (const parked of listParked(runtime, signal)) keys.push(parked.key);
  const outcomes: Outcome[] = [];
  for (const each of keys) {
    const outcome = await replayParked(runtime, each, undefined, signal);
    if (outcome !== undefined) outcomes.push(outcome);
  }
  return outcomes;
}

/** A row key as the model takes it (an object of its key fields); anything else is a `ValidationError`. */
function requireRowKey(runtime: RowBasics, key: unknown): void {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) {
    throw new ValidationError(
      `Projection ${runtime.name}: expected a row key, an object of the row's key fields, not ${JSON.stringify(key) ?? String(key)}.`,
      [{ path: ['key'], message: 'not a row key' }],
    );
  }
  runtime.store.readModel.keyOf(key as Key); // names a missing or malformed key field
}

/**
 * An event to skip must be one the parked row holds: past its instance's checkpoint, through the last
 * event that reached the row, addressing this row, and of the type named. Otherwise skipping it would
 * record a skip that never happened (and replay the row's failing event again).
 */
function requireHeld(runtime: RowBasics, row: ReadRow<unknown>, rowId: string, call: CallContext<StreamEvent>, ref: EventRef): void {
  const described = JSON.stringify(ref) ?? typeof ref;
  const valid = typeof ref === 'object' && ref !== null && typeof ref.streamName === 'string' && typeof ref.streamId === 'string';
  const instance = valid ? instanceKey(ref) : undefined;
  const held = instance === undefined ? undefined : call.inHand.get(instance)?.get(ref.version);
  // Called for a parked row only.
  const parked = parkedOf(row) as ParkedRecord;
  const through = instance === undefined ? undefined : parked.through[instance];
  const checkpoint = instance === undefined ? 0 : (row.checkpoints.get(instance) ?? row.unattributed ?? 0);
  if (held !== undefined && through !== undefined && held.version > checkpoint && held.version <= through && held.type === ref.type) {
    const key = runtime.keyOf(held);
    if (key !== undefined && rowIdOf(runtime, key) === rowId) return;
  }
  throw new ValidationError(
    `Projection ${runtime.name}: the parked row ${JSON.stringify(parked.key)} does not hold the event ${described}. ` +
      `Give an event it holds (past its checkpoint, through ${JSON.stringify(parked.through)}), ` +
      `or no event to skip the one it is parked on, ${JSON.stringify(parked.event)}.`,
    [{ path: ['event'], message: 'not an event of the parked row' }],
  );
}

/**
 * The last event of each source instance that reached a parked row (its `through`), read from the
 * store: a replay of the row folds from its checkpoints up to them.
 */
export async function parkedEvents(
  streams: ReadonlyMap<string, AnyEventStream>,
  row: ReadRow<unknown>,
  call: CallContext<StreamEvent>,
): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for (const [instance, through] of Object.entries(parkedOf(row)?.through ?? {})) {
    const separator = instance.indexOf('#');
    const stream = streams.get(instance.slice(0, separator));
    if (stream === undefined) continue;
    const checkpoint = row.checkpoints.get(instance) ?? row.unattributed ?? 0;
    const last = (await eventsAbove(stream, instance.slice(separator + 1), call, checkpoint, through)).at(-1);
    if (last !== undefined) events.push(last);
  }
  return events;
}
