import { ConfigurationError, RowTooLargeError, ValidationError } from '../../errors';
import { TransactionLimits, itemFits, itemSize } from '../../dynamo';
import { instanceKey, type AnyEventStream, type StreamEvent } from '../../store';
import { EventFailure, foldRow, type FoldResult } from './fold-row';
import type { Rejected } from '../../outcome';
import type { CallContext } from './call-context';
import type { Fold, FoldRange } from './operation';
import type { Key, RowGroup } from './plan-rows';
import type { ReadRow } from './read-rows';
import { eventsAbove } from './read-gaps';
import type { ExtraPut, MessageBatch } from './row-messages';
import { rowIdOf, storedKeyOf, type RowRuntime } from './row-store';
import { rowItem, stubItem, type RowMarks } from './write-row';

type Group = RowGroup<StreamEvent, Key>;
type Rows = Pick<RowRuntime<unknown>, 'name' | 'store' | 'streams' | 'keyOf'>;

/** What one write of a row did. */
export interface Step {
  readonly applied: StreamEvent[];
  /** What the row had when this write read it (only the first write's counts for the call). */
  readonly alreadyApplied: StreamEvent[];
  readonly skipped: StreamEvent[];
  readonly rejected: Rejected<StreamEvent>[];
  readonly checkpoints: ReadonlyMap<string, number>;
  readonly revision: number | undefined;
  /** The fold stopped to keep the write within a transaction's limits: another write goes on. */
  readonly more: boolean;
  /** An event failed: what came before it was written, and this is the failure to handle. */
  readonly failure?: EventFailure<StreamEvent> | undefined;
}

/** A fold of a row, and the write it needs (none when nothing changed): the row's item and its outbox messages. */
export interface BuiltWrite {
  /** What the write does once it went through. */
  readonly step: Step;
  readonly write?: { readonly item: Record<string, unknown>; readonly extras: ReadonlyArray<ExtraPut> } | undefined;
}

/** What building a row's write takes. */
export interface BuildInput<State> {
  readonly runtime: RowRuntime<State>;
  /** The row's events of the call. */
  readonly group: Group;
  readonly call: CallContext<StreamEvent>;
  /** The row as read. */
  readonly row: ReadRow<State>;
  /** How the fold goes (see `Fold`). */
  readonly fold: Fold<State>;
  /** Told the first event of each range before it is folded: the event a failure is put down to. */
  readonly attempting?: ((event: StreamEvent) => void) | undefined;
}

/** What a fold gathered across its ranges. */
interface Folded<State> {
  state: State | undefined;
  removed: boolean;
  lastState: State | undefined;
  readonly checkpoints: Map<string, number>;
  /** A checkpoint moved: the row has to be written. */
  changed: boolean;
  /** The events passed over on purpose that the fold got past, moving their checkpoint over them. */
  readonly passedOver: StreamEvent[];
  /** The fold stopped to keep the write within a transaction's limits. */
  more: boolean;
  failure: EventFailure<StreamEvent> | undefined;
  readonly applied: StreamEvent[];
  readonly skipped: StreamEvent[];
  readonly rejected: Rejected<StreamEvent>[];
}

/**
 * Folds a row's events from what was read and builds the write that brings it forward, without sending
 * it: the caller sends it on its own (`applyRow`) or in a transaction of its own.
 */
export async function buildWrite<State>(input: BuildInput<State>): Promise<BuiltWrite> {
  const { runtime, group, row, fold } = input;
  const stored = checkpointsOf(runtime, group, row);
  const alreadyApplied = group.events.filter((event) => event.version <= (stored.get(instanceKey(event)) ?? 0));
  const batch = fold.messages ? runtime.outbox?.batch(group.key, (row.revision ?? 0) + 1) : undefined;
  const folded: Folded<State> = {
    ...fold.start(row),
    lastState: undefined,
    checkpoints: new Map(stored),
    changed: false,
    passedOver: [],
    more: false,
    failure: undefined,
    applied: [],
    skipped: [],
    rejected: [],
  };
  for (const range of fold.ranges(group, stored)) if (await foldRange(input, folded, range, batch)) break;
  const { applied, skipped, rejected, checkpoints, removed, more, failure, passedOver } = folded;
  const written = removed ? folded.lastState : folded.state;
  const unchanged: Step = { applied, alreadyApplied, skipped, rejected, checkpoints: stored, revision: row.revision, more: false };
  if (!folded.changed && !fold.writesUnchanged(row, written)) return { step: unchanged };
  const ended = failure === undefined ? undefined : { event: failure.event, error: failure.cause };
  const records = runtime.store.records.afterFold(row.records, { checkpoints, failure: ended, more, passedOver });
  const marks: RowMarks = { checkpoints, removed, records, ...(more ? { more } : {}) };
  // A row that does not exist keeps its checkpoint past a skipped event and its bookkeeping in a stub.
  const item =
    written === undefined ? stubItem(runtime.store, row, group.key, marks) : rowItem(runtime.store, row, runtime.toItem(written, group), marks);
  assertSameRow(runtime, group.key, item);
  assertFits(runtime, group.key, item, checkpoints.size);
  const revision = item['_rev'];
  return {
    step: { ...unchanged, checkpoints, revision: typeof revision === 'number' ? revision : undefined, more, ...optional('failure', failure) },
    write: { item, extras: batch?.puts ?? [] },
  };
}

/** `{ [name]: value }`, or nothing for `undefined`. */
function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V };
}

/**
 * Folds one source instance's range into what the fold gathered; resolves `true` when the fold ends
 * there (an event failed, or the write is full).
 */
async function foldRange<State>(
  input: BuildInput<State>,
  folded: Folded<State>,
  range: FoldRange,
  batch: MessageBatch | undefined,
): Promise<boolean> {
  const { runtime, group, call } = input;
  const { instance, from, to } = range;
  const { stream, streamId } = sourceOf(runtime, instance);
  const inRange = await eventsAbove(stream, streamId, call, from, to);
  // An event the records pass over is never folded (a rebuild, from version 1, passes over a skipped one
  // again); one past the row's checkpoint (a skip) moves it over itself once the fold gets past it.
  const passesOver = (event: StreamEvent) => runtime.store.records.passesOver(input.row.records, event);
  const checkpoint = folded.checkpoints.get(instance) ?? 0;
  const passing = inRange.filter((event) => event.version > checkpoint && passesOver(event));
  // The call's own events of the row were planned into it already; events read to fill a gap are asked.
  const planned = new Set<StreamEvent>(group.events);
  const events = inRange.filter((event) => !passesOver(event) && (planned.has(event) || addresses(runtime, event, group.rowId)));
  const first = events[0];
  if (first !== undefined) input.attempting?.(first);
  const result = await foldRow<State, StreamEvent>({
    state: folded.state,
    removed: folded.removed,
    checkpoint: from,
    events,
    initial: (event) => runtime.initial(group, event),
    evolve: runtime.evolve,
    ...(runtime.terminal === undefined ? {} : { terminal: runtime.terminal }),
    ...(runtime.recreate === undefined ? {} : { recreate: runtime.recreate }),
    ...(batch === undefined ? {} : { accept: (event: StreamEvent, after: State | undefined) => batch.accept(event, after) }),
  }).catch((error: unknown) => {
    // A failing event ends the fold; what came before it (a pass-over too) is still written, then the failure is handled.
    if (!(error instanceof EventFailure) || error.before === undefined) throw error;
    // An event at or behind the row's checkpoint failed (a rebuild's): the checkpoint would stay where it is
    // and stand for events the state never took in, so nothing of the fold is written.
    if ((error.event as StreamEvent).version <= (folded.checkpoints.get(instance) ?? 0)) throw error;
    // Nothing written yet by this fold, in this range or an earlier source's (a pass-over counts): the failure is all there is.
    const before = error.before as FoldResult<State, StreamEvent>;
    if (!folded.changed && folded.passedOver.length === 0 && !before.changed && !passing.some((event) => passes(before, event))) throw error;
    folded.failure = error as EventFailure<StreamEvent>;
    return before;
  });
  folded.state = result.state;
  folded.removed = result.removed;
  folded.lastState = result.lastState ?? folded.lastState;
  folded.applied.push(...result.applied);
  folded.skipped.push(...result.skipped);
  folded.rejected.push(...result.rejected);
  // A checkpoint only ever moves forward: a fold from the first event up to it leaves it where it is.
  moveCheckpoint(folded, instance, result.version);
  // An event passed over moves the checkpoint past it, as if it had been applied, once the fold got past it.
  for (const event of passing.filter((each) => passes(result, each))) {
    folded.passedOver.push(event);
    moveCheckpoint(folded, instance, event.version);
  }
  if (folded.failure !== undefined) return true;
  folded.more = result.stopped;
  return result.stopped;
}

function moveCheckpoint(folded: Folded<unknown>, instance: string, version: number): void {
  if (version <= (folded.checkpoints.get(instance) ?? 0)) return;
  folded.checkpoints.set(instance, version);
  folded.changed = true;
}

/** Whether a fold got past `event`, passed over in its range: it folded the whole range, or stopped at a later event. */
function passes(folded: FoldResult<unknown, StreamEvent>, event: StreamEvent): boolean {
  return !folded.stopped || (folded.stoppedAt?.version ?? 0) > event.version;
}

/** The row's checkpoints; a single-source row fed by another instance than the call's events refuses them. */
export function checkpointsOf(runtime: Rows, group: Group, row: ReadRow<unknown>): ReadonlyMap<string, number> {
  return runtime.store.checkpoints.forGroup(runtime.name, group, row);
}

/** The stream and stream id of a source instance the row records. */
function sourceOf(runtime: Rows, instance: string): { stream: AnyEventStream; streamId: string } {
  const separator = instance.indexOf('#');
  const streamName = instance.slice(0, separator);
  const stream = runtime.streams.get(streamName);
  if (stream === undefined)
    throw new ConfigurationError(
      `Projection ${runtime.name}: a row records stream ${streamName}, which is none of its sources: was a source removed?`,
    );
  return { stream, streamId: instance.slice(separator + 1) };
}

/** Whether the event addresses the row `rowId` (its key says so). */
export function addresses(runtime: Rows, event: StreamEvent, rowId: string): boolean {
  const key = runtime.keyOf(event);
  return key !== undefined && rowIdOf(runtime, key) === rowId;
}

function assertSameRow(runtime: Rows, key: Key, item: Record<string, unknown>): void {
  for (const [attribute, value] of Object.entries(storedKeyOf(runtime, key).attributes)) {
    if (item[attribute] !== value) {
      throw new ValidationError(
        `Projection ${runtime.name}: the folded row's key fields no longer match the key ${JSON.stringify(key)}; ` +
          '`initial`, `evolve` and `toItem` must keep the key fields `key` returned.',
      );
    }
  }
}

/** A row past DynamoDB's item limit would fail at the write: refuse it clearly instead. */
function assertFits(runtime: Rows, key: Key, item: Record<string, unknown>, instances: number): void {
  if (itemFits(item, TransactionLimits.itemBytes)) return;
  throw new RowTooLargeError(runtime.name, key, itemSize(item), runtime.store.checkpoints.sourcesOfTooLarge(instances));
}
