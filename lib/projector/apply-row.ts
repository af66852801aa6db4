import { ConcurrentModificationError, DynafoldError, ValidationError } from '../errors';
import type { AnyEventStream, ReadModel, StreamEvent } from '../store';
import { backoffDelay, type Backoff } from '../util/backoff';
import { sleep } from '../util/sleep';
import { foldRow, type Evolved } from './fold-row';
import type { AppliedOutcome, Rejected, RowOutcome } from './outcome';
import type { OutboxWriter } from './outbox';
import { holdsRange, type InHand, type RowGroup } from './row-plan';
import { readRow, rowItem, writeRow, type ReadRow, type RowStore } from './row-store';

/** Everything applying one row needs, resolved once by the projection. */
export interface RowRuntime<State> {
  readonly name: string;
  readonly stream: AnyEventStream;
  readonly store: RowStore;
  /** The row an event addresses, as a stable id, or `undefined` for an ignored event. */
  readonly rowIdOf: (event: StreamEvent) => string | undefined;
  readonly initial: (streamId: Record<string, string>, event: StreamEvent) => State;
  readonly evolve: (state: State, event: StreamEvent) => Evolved<State> | Promise<Evolved<State>>;
  readonly terminal?: (error: unknown) => boolean;
  readonly recreate?: (event: StreamEvent) => boolean;
  readonly toItem: (state: State, context: { streamId: Record<string, string>; key: Readonly<Record<string, unknown>> }) => Record<string, unknown>;
  readonly retry: { readonly attempts: number; readonly backoff: Backoff };
  readonly outbox?: OutboxWriter;
}

type Group = RowGroup<StreamEvent, Readonly<Record<string, unknown>>>;
type Progress = Omit<AppliedOutcome, 'status' | 'key' | 'streamId' | 'positions' | 'alreadyApplied'>;

/** A transaction holds 100 items: the row and at most 99 outbox messages. */
const OUTBOX_EVENTS_PER_WRITE = 99;

/**
 * Brings one row forward with the events of a call: one strongly consistent read of the row (or the one
 * read for the whole call, `prefetched`), at most one read of the stream to fill a gap, one conditional
 * write. A lost race re-reads and tries again after a jittered, growing delay; a row that loses every
 * try fails with ConcurrentModificationError.
 */
export async function applyRow<State>(runtime: RowRuntime<State>, group: Group, inHand: InHand<StreamEvent>, prefetched?: ReadRow<State>): Promise<RowOutcome> {
  const failed = (error: unknown): RowOutcome => ({ status: 'failed', key: group.key, streamId: group.streamId, error, positions: group.positions });
  try {
    const streamId = runtime.stream.parseStreamId(group.streamId);
    const done: Progress[] = [];
    let alreadyApplied: StreamEvent[] = [];
    let read = prefetched;
    for (let attempt = 0; attempt < runtime.retry.attempts; ) {
      const row = read ?? (await readRow<State>(runtime.store, group.key));
      read = undefined;
      const step = await tryApply(runtime, group, inHand, streamId, row);
      if (step === 'lost') {
        await sleep(backoffDelay(attempt++, runtime.retry.backoff));
        continue;
      }
      // What the row had when this call's first write won (a lost race's winner may have applied more).
      if (done.length === 0) alreadyApplied = group.events.filter((event) => event.version <= row.checkpoint);
      done.push(step.progress);
      if (!step.more) return { status: 'applied', key: group.key, streamId: group.streamId, alreadyApplied, positions: group.positions, ...merge(done) };
    }
    return failed(new ConcurrentModificationError(runtime.name, group.key, runtime.retry.attempts));
  } catch (error) {
    return failed(error);
  }
}

function merge(steps: ReadonlyArray<Progress>): Progress {
  const last = steps[steps.length - 1] as Progress;
  return {
    applied: steps.flatMap((step) => step.applied),
    skipped: steps.flatMap((step) => step.skipped),
    rejected: steps.flatMap((step) => step.rejected) as Rejected<StreamEvent>[],
    version: last.version,
  };
}

async function tryApply<State>(
  runtime: RowRuntime<State>,
  group: Group,
  inHand: InHand<StreamEvent>,
  streamId: Record<string, string>,
  row: ReadRow<State>,
): Promise<{ progress: Progress; more: boolean } | 'lost'> {
  const highest = group.events[group.events.length - 1]?.version ?? 0;
  const unchanged = { applied: [], skipped: [], rejected: [], version: row.checkpoint };
  if (highest <= row.checkpoint) return { progress: unchanged, more: false };

  let events = (await eventsAbove(runtime.stream, group.streamId, inHand, row.checkpoint, highest)).filter(
    (event) => runtime.rowIdOf(event) === group.rowId,
  );
  const more = runtime.outbox !== undefined && events.length > OUTBOX_EVENTS_PER_WRITE;
  if (more) events = events.slice(0, OUTBOX_EVENTS_PER_WRITE);
  const folded = await foldRow({
    state: row.state,
    removed: row.removed,
    checkpoint: row.checkpoint,
    events,
    initial: (event) => runtime.initial(streamId, event),
    evolve: runtime.evolve,
    ...(runtime.terminal === undefined ? {} : { terminal: runtime.terminal }),
    ...(runtime.recreate === undefined ? {} : { recreate: runtime.recreate }),
  });
  const progress = { applied: folded.applied, skipped: folded.skipped, rejected: folded.rejected, version: folded.version };
  const written = folded.removed ? folded.lastState : folded.state;
  if (!folded.changed || written === undefined) return { progress: { ...progress, version: row.checkpoint }, more: false };

  const item = rowItem(runtime.store, row, runtime.toItem(written, { streamId, key: group.key }), { version: folded.version, removed: folded.removed });
  assertSameRow(runtime.name, runtime.store.readModel, group.key, item);
  const messages = runtime.outbox?.messages(group.key, item, folded.applied, folded.state) ?? [];
  if (!(await writeRow(runtime.store, row, item, messages))) return 'lost';
  return { progress, more };
}

/**
 * The stream's events from checkpoint + 1 to `highest`: from the call's own events when they hold every
 * version (those of other rows and ignored ones count), else from ONE strongly consistent read bounded
 * at `highest`. What is read is kept in hand for the call's other rows and retries.
 */
export async function eventsAbove(stream: AnyEventStream, streamId: string, inHand: InHand<StreamEvent>, checkpoint: number, highest: number): Promise<StreamEvent[]> {
  let versions = inHand.get(streamId);
  if (!holdsRange(versions, checkpoint + 1, highest)) {
    const read = await stream.readFrom(streamId, checkpoint, { toVersion: highest });
    if (versions === undefined) inHand.set(streamId, (versions = new Map()));
    for (const event of read) versions.set(event.version, event);
    if (!holdsRange(versions, checkpoint + 1, highest)) {
      throw new DynafoldError(
        'projector.missingEvents',
        `Stream ${stream.name} "${streamId}" lacks versions between ${checkpoint + 1} and ${highest}, although version ${highest} was delivered: ` +
          'the delivered records do not come from this events table.',
      );
    }
  }
  const events: StreamEvent[] = [];
  for (let version = checkpoint + 1; version <= highest; version++) events.push(versions?.get(version) as StreamEvent);
  return events;
}

export function assertSameRow(name: string, readModel: ReadModel, key: Readonly<Record<string, unknown>>, item: Record<string, unknown>): void {
  const expected = readModel.keyOf(key);
  for (const [attribute, value] of Object.entries(expected)) {
    if (item[attribute] !== value) {
      throw new ValidationError(
        `Projection ${name}: the folded row's key fields no longer match the key ${JSON.stringify(key)}; ` +
          '`initial`, `evolve` and `toItem` must keep the key fields `key` returned.',
      );
    }
  }
}
