import { ConcurrentModificationError, DynafoldError } from '../errors';
import type { AnyEventStream, StreamEvent } from '../store';
import { itemSize } from '../store/item-size';
import { RowAttributes } from '../store/read-model-keys';
import { TransactionLimits } from '../store/defaults';
import { backoffDelay } from '../util/backoff';
import { sleep } from '../util/sleep';
import { assertSameRow, eventsAbove, type RowRuntime } from './apply-row';
import { foldRow, type FoldResult } from './fold-row';
import type { Rejected, RowOutcome } from './outcome';
import type { InHand, RowGroup } from './row-plan';
import { readRow, rowItem, writeRow, type ReadRow } from './row-store';

/** A multi-source row's runtime: a single-source runtime whose `stream` is chosen per event. */
export interface MultiSourceRuntime<State> extends Omit<RowRuntime<State>, 'stream' | 'initial'> {
  readonly streamOf: (streamName: string) => AnyEventStream;
  readonly initial: (key: Readonly<Record<string, unknown>>, event: StreamEvent) => State;
}

type Group = RowGroup<StreamEvent, Readonly<Record<string, unknown>>>;

/** A source instance's id in the row's checkpoint map. */
export function sourceId(event: { readonly streamName: string; readonly streamId: string }): string {
  return `${event.streamName}#${event.streamId}`;
}

/** The per-instance checkpoints a multi-source row keeps. */
export function sourceCheckpoints(row: ReadRow<unknown>): Record<string, number> {
  const map = row.item?.[RowAttributes.sources];
  return typeof map === 'object' && map !== null ? { ...(map as Record<string, number>) } : {};
}

/**
 * Brings a multi-source row forward: each source instance is sorted, deduplicated, gap-filled from its own
 * checkpoint (at most one read per instance) and folded in version order; instances are folded one after
 * another in a fixed order. One write carries every instance's new checkpoint, conditioned on the row's
 * revision, so concurrent writers through any source are caught.
 */
export async function applyMultiSourceRow<State>(runtime: MultiSourceRuntime<State>, group: Group, inHand: InHand<StreamEvent>, prefetched?: ReadRow<State>): Promise<RowOutcome> {
  const failed = (error: unknown): RowOutcome => ({ status: 'failed', key: group.key, streamId: group.streamId, error, positions: group.positions });
  try {
    let read = prefetched;
    const done: Array<Extract<RowOutcome, { status: 'applied' }>> = [];
    for (let attempt = 0; attempt < runtime.retry.attempts; ) {
      const row = read ?? (await readRow<State>(runtime.store, group.key));
      read = undefined;
      const step = await tryApply(runtime, group, inHand, row);
      if (step === 'lost') {
        await sleep(backoffDelay(attempt++, runtime.retry.backoff));
        continue;
      }
      done.push(step.outcome);
      // An outbox write holds at most 99 messages: a longer fold goes on with another write.
      if (!step.more) return mergeSteps(done);
    }
    return failed(new ConcurrentModificationError(runtime.name, group.key, runtime.retry.attempts));
  } catch (error) {
    return failed(error);
  }
}

function mergeSteps(steps: ReadonlyArray<Extract<RowOutcome, { status: 'applied' }>>): RowOutcome {
  const first = steps[0] as Extract<RowOutcome, { status: 'applied' }>;
  const last = steps[steps.length - 1] as Extract<RowOutcome, { status: 'applied' }>;
  return {
    ...last,
    alreadyApplied: first.alreadyApplied,
    applied: steps.flatMap((step) => step.applied),
    skipped: steps.flatMap((step) => step.skipped),
    rejected: steps.flatMap((step) => step.rejected),
  };
}

const OUTBOX_EVENTS_PER_WRITE = 99;

async function tryApply<State>(
  runtime: MultiSourceRuntime<State>,
  group: Group,
  inHand: InHand<StreamEvent>,
  row: ReadRow<State>,
): Promise<{ outcome: Extract<RowOutcome, { status: 'applied' }>; more: boolean } | 'lost'> {
  const checkpoints = sourceCheckpoints(row);
  const alreadyApplied = group.events.filter((event) => event.version <= (checkpoints[sourceId(event)] ?? 0));
  const instances = [...new Set(group.events.map(sourceId))].sort();
  let state = row.state;
  let removed = row.removed;
  let lastState: State | undefined;
  const applied: StreamEvent[] = [];
  const skipped: StreamEvent[] = [];
  const rejected: Rejected<StreamEvent>[] = [];
  let budget = runtime.outbox === undefined ? Number.POSITIVE_INFINITY : OUTBOX_EVENTS_PER_WRITE;
  let more = false;
  for (const instance of instances) {
    const own = group.events.filter((event) => sourceId(event) === instance);
    const first = own[0] as StreamEvent;
    const checkpoint = checkpoints[instance] ?? 0;
    const highest = (own[own.length - 1] as StreamEvent).version;
    if (highest <= checkpoint) continue;
    let events = (await eventsAbove(runtime.streamOf(first.streamName), first.streamId, inHand, checkpoint, highest)).filter(
      (event) => runtime.rowIdOf(event) === group.rowId,
    );
    if (events.length > budget) {
      events = events.slice(0, budget);
      more = true;
    }
    budget -= events.length;
    const folded: FoldResult<State, StreamEvent> = await foldRow({
      state,
      removed,
      checkpoint,
      events,
      initial: (event) => runtime.initial(group.key, event),
      evolve: runtime.evolve,
      ...(runtime.terminal === undefined ? {} : { terminal: runtime.terminal }),
      ...(runtime.recreate === undefined ? {} : { recreate: runtime.recreate }),
    });
    ({ state, removed } = folded);
    lastState = folded.lastState ?? lastState;
    if (folded.changed) checkpoints[instance] = folded.version;
    applied.push(...folded.applied);
    skipped.push(...folded.skipped);
    rejected.push(...folded.rejected);
  }
  const written = removed ? lastState : state;
  const changed = applied.length > 0 || instances.some((instance) => checkpoints[instance] !== sourceCheckpoints(row)[instance]);
  const outcome = (version: number): Extract<RowOutcome, { status: 'applied' }> => ({
    status: 'applied',
    key: group.key,
    streamId: group.streamId,
    applied,
    alreadyApplied,
    skipped,
    rejected,
    version,
    positions: group.positions,
    sources: checkpoints,
  });
  if (!changed || written === undefined) return { outcome: outcome(row.revision ?? 0), more: false };

  const item = rowItem(runtime.store, row, runtime.toItem(written, { streamId: {}, key: group.key }), { removed });
  item[RowAttributes.sources] = checkpoints;
  assertSameRow(runtime.name, runtime.store.readModel, group.key, item);
  assertFits(runtime.name, group.key, item, Object.keys(checkpoints).length);
  const messages = runtime.outbox?.messages(group.key, item, applied, state) ?? [];
  if (!(await writeRow(runtime.store, row, item, messages))) return 'lost';
  return { outcome: outcome(item[RowAttributes.revision] as number), more };
}

/** A row that keeps a checkpoint per source instance grows with them: refuse clearly before DynamoDB does. */
function assertFits(name: string, key: Readonly<Record<string, unknown>>, item: Record<string, unknown>, instances: number): void {
  const size = itemSize(item);
  if (size <= TransactionLimits.itemBytes) return;
  throw new DynafoldError(
    'projector.rowTooLarge',
    `Projection ${name}: row ${JSON.stringify(key)} would be about ${Math.ceil(size / 1024)} KB with checkpoints of ${instances} source instances, ` +
      "over DynamoDB's 400 KB item limit. Split the row (e.g. by period) so each row is fed by fewer stream instances.",
  );
}
