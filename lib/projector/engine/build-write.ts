import { ConfigurationError, RowTooLargeError, ValidationError } from '../../errors';
import { TransactionLimits, itemSize } from '../../dynamo';
import { instanceKey, type AnyEventStream, type StreamEvent } from '../../store';
import { EventFailure, foldRow, type FoldResult } from './fold-row';
import type { EventRef, Rejected } from '../outcome';
import type { CallContext } from './call-context';
import { keptRecords } from './parking';
import type { Key, RowGroup } from './plan-rows';
import type { ReadRow } from './read-rows';
import { eventsAbove } from './read-gaps';
import { rowItem, stubItem, type ExtraPut, type RowMarks } from './write-row';
import { rowIdOf, type RowRuntime } from './runtime';

type Group = RowGroup<StreamEvent, Key>;
type Rows = Pick<RowRuntime<unknown>, 'name' | 'store' | 'streams' | 'keyOf'>;

/**
 * How a row write folds. `'apply'` brings the row forward from its checkpoints with the call's events;
 * `'rebuild'` re-derives it from version 1 up to the checkpoints it has, moving none of them and writing
 * no outbox messages (events past a checkpoint are left to the next delivery, which applies them).
 */
export interface FoldOptions {
  readonly mode: 'apply' | 'rebuild';
  /** Apply although the row is parked, and write even if nothing changed, which unparks it (`retryParked`, `skipParked`). */
  readonly unpark?: boolean | undefined;
  /** An event to skip on purpose (`skipParked`): its instance's checkpoint moves past it and the row records it. */
  readonly skip?: { readonly event: EventRef; readonly error: { readonly name: string; readonly message: string } } | undefined;
  /** `false`: write no outbox message for what this fold applies (a backfill folds history, which is no news). */
  readonly messages?: boolean | undefined;
}

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

/**
 * Folds a row's events from what was read and builds the write that brings it forward, without sending
 * it: a delivery sends it on its own, an append with inline projections in its own transaction.
 */
export async function buildWrite<State>(
  runtime: RowRuntime<State>,
  group: Group,
  call: CallContext<StreamEvent>,
  row: ReadRow<State>,
  fold: FoldOptions,
  attempting: (event: StreamEvent) => void = () => undefined,
): Promise<BuiltWrite> {
  const { mode, skip } = fold;
  const stored = checkpointsOf(runtime, group, row);
  const checkpoints = new Map(stored);
  const alreadyApplied = mode === 'apply' ? group.events.filter((event) => event.version <= (stored.get(instanceKey(event)) ?? 0)) : [];
  const batch = mode === 'apply' && fold.messages !== false ? runtime.outbox?.batch(group.key, (row.revision ?? 0) + 1) : undefined;
  let state = mode === 'apply' ? row.state : undefined;
  let removed = mode === 'apply' ? row.removed : false;
  let lastState: State | undefined;
  let changed = false;
  let more = false;
  let failure: EventFailure<StreamEvent> | undefined;
  let skipDone = false;
  const applied: StreamEvent[] = [];
  const skipped: StreamEvent[] = [];
  const rejected: Rejected<StreamEvent>[] = [];
  for (const { stream, streamId, instance, from, to } of foldRanges(runtime, group, stored, mode)) {
    const skipping =
      skip !== undefined && instanceKey(skip.event) === instance && skip.event.version > from && skip.event.version <= to
        ? skip.event.version
        : undefined;
    const events = (await eventsAbove(stream, streamId, call, from, to)).filter(
      (event) => event.version !== skipping && addresses(runtime, event, group.rowId),
    );
    const first = events[0];
    if (first !== undefined) attempting(first);
    const folded = await foldRow<State, StreamEvent>({
      state,
      removed,
      checkpoint: from,
      events,
      initial: (event) => runtime.initial(group, event),
      evolve: runtime.evolve,
      ...(runtime.terminal === undefined ? {} : { terminal: runtime.terminal }),
      ...(runtime.recreate === undefined ? {} : { recreate: runtime.recreate }),
      ...(batch === undefined ? {} : { accept: (event: StreamEvent, after: State | undefined) => batch.accept(event, after) }),
    }).catch((error: unknown) => {
      // A failing event ends the fold; what came before it (a skip too) is still written, then the failure is handled.
      if (!(error instanceof EventFailure) || error.before === undefined) throw error;
      // Nothing written yet by this fold, in this range or an earlier source's (a skip counts): the failure is all there is.
      if (!changed && !skipDone && !error.before.changed && !passes(error.before as FoldResult<State, StreamEvent>, skipping)) throw error;
      failure = error as EventFailure<StreamEvent>;
      return error.before as FoldResult<State, StreamEvent>;
    });
    ({ state, removed } = folded);
    lastState = folded.lastState ?? lastState;
    applied.push(...folded.applied);
    skipped.push(...folded.skipped);
    rejected.push(...folded.rejected);
    if (mode === 'apply' && folded.changed) {
      checkpoints.set(instance, folded.version);
      changed = true;
    }
    // The skipped event moves the checkpoint past it, as if it had been applied, once the fold got past it.
    if (passes(folded, skipping)) {
      skipDone = true;
      if ((checkpoints.get(instance) ?? 0) < (skipping as number)) {
        checkpoints.set(instance, skipping as number);
        changed = true;
      }
    }
    if (failure !== undefined) break;
    if (folded.stopped) {
      more = true;
      break;
    }
  }
  const written = removed ? lastState : state;
  const unchanged: Step = { applied, alreadyApplied, skipped, rejected, checkpoints: stored, revision: row.revision, more: false };
  const unparking = fold.unpark === true && row.parked !== undefined;
  if (mode === 'rebuild' && (!row.exists || written === undefined)) return { step: unchanged };
  if (mode === 'apply' && !changed && !unparking) return { step: unchanged };
  if (written === undefined && !changed && !unparking) return { step: unchanged };

  const marks: RowMarks = {
    checkpoints,
    removed,
    ...(more ? { more } : {}),
    ...(skip !== undefined && skipDone ? { skipped: [{ ...skip, skippedAt: new Date().toISOString() }] } : {}),
    ...keptRecords(row, checkpoints, unparking && failure === undefined && !more, unparking ? failure : undefined),
  };
  // A row that does not exist keeps its checkpoint past a skipped event and its bookkeeping in a stub.
  const item =
    written === undefined ? stubItem(runtime.store, row, group.key, marks) : rowItem(runtime.store, row, runtime.toItem(written, group), marks);
  assertSameRow(runtime, group.key, item);
  assertFits(runtime, group.key, item, checkpoints.size);
  const revision = item['_rev'];
  return {
    step: {
      ...unchanged,
      checkpoints,
      revision: typeof revision === 'number' ? revision : undefined,
      more,
      ...(failure === undefined ? {} : { failure }),
    },
    write: { item, extras: batch?.puts ?? [] },
  };
}

/** Whether a fold got past the event `skipping` (a version of its range): it folded the whole range, or stopped at a later event. */
function passes(folded: FoldResult<unknown, StreamEvent>, skipping: number | undefined): boolean {
  if (skipping === undefined) return false;
  return !folded.stopped || (folded.stoppedAt?.version ?? 0) > skipping;
}

/** The row's checkpoints; a single-source row fed by another instance than the call's events refuses them. */
export function checkpointsOf(runtime: Rows, group: Group, row: ReadRow<unknown>): ReadonlyMap<string, number> {
  return runtime.store.checkpoints.forGroup(runtime.name, group, row);
}

/** What each source instance contributes to one fold: its versions `from` (exclusive) to `to`, in a fixed order of instances. */
function foldRanges(runtime: Rows, group: Group, stored: ReadonlyMap<string, number>, mode: FoldOptions['mode']) {
  const ranges: Array<{ stream: AnyEventStream; streamId: string; instance: string; from: number; to: number }> = [];
  if (mode === 'apply') {
    const highest = new Map<string, StreamEvent>();
    for (const event of group.events) highest.set(instanceKey(event), event); // events are in version order
    for (const [instance, event] of [...highest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const from = stored.get(instance) ?? 0;
      if (event.version > from)
        ranges.push({ stream: streamOf(runtime, event.streamName), streamId: event.streamId, instance, from, to: event.version });
    }
  } else {
    for (const [instance, to] of [...stored].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const separator = instance.indexOf('#');
      const streamName = instance.slice(0, separator);
      ranges.push({ stream: streamOf(runtime, streamName), streamId: instance.slice(separator + 1), instance, from: 0, to });
    }
  }
  return ranges;
}

function streamOf(runtime: Rows, streamName: string): AnyEventStream {
  const stream = runtime.streams.get(streamName);
  if (stream === undefined)
    throw new ConfigurationError(
      `Projection ${runtime.name}: a row records stream ${streamName}, which is none of its sources: was a source removed?`,
    );
  return stream;
}

/** Whether the event addresses the row `rowId` (its key says so). */
export function addresses(runtime: Rows, event: StreamEvent, rowId: string): boolean {
  const key = runtime.keyOf(event);
  return key !== undefined && rowIdOf(runtime, key) === rowId;
}

function assertSameRow(runtime: Rows, key: Key, item: Record<string, unknown>): void {
  for (const [attribute, value] of Object.entries(runtime.store.readModel.keyOf(key))) {
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
  const size = itemSize(item);
  if (size <= TransactionLimits.itemBytes) return;
  throw new RowTooLargeError(runtime.name, key, size, runtime.store.checkpoints.sourcesOfTooLarge(instances));
}
