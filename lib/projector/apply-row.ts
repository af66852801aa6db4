import { ConcurrentModificationError, DynafoldError, ValidationError } from '../errors';
import type { AnyEventStream, ReadModel, StreamEvent } from '../store';
import { backoffDelay, type Backoff } from '../util/backoff';
import { sleep } from '../util/sleep';
import type { CheckpointField } from './checkpoint';
import { foldRow } from './fold-row';
import type { RowOutcome } from './outcome';
import { holdsRange, type InHand, type RowGroup } from './row-plan';
import { readRow, rowItem, writeRow } from './row-writer';
import type { SkipEvent } from './skip';

/** Everything applying one row needs, resolved once by the projection. */
export interface RowRuntime<State> {
  readonly name: string;
  readonly stream: AnyEventStream;
  readonly readModel: ReadModel;
  readonly checkpoint: CheckpointField;
  /** The row an event addresses, as a stable id, or `undefined` for an ignored event. */
  readonly rowIdOf: (event: StreamEvent) => string | undefined;
  readonly initial: (streamId: Record<string, string>, event: StreamEvent) => State;
  readonly evolve: (state: State, event: StreamEvent) => State | SkipEvent | Promise<State | SkipEvent>;
  readonly terminal?: (error: unknown) => boolean;
  readonly toItem: (state: State, context: { streamId: Record<string, string>; key: Readonly<Record<string, unknown>> }) => Record<string, unknown>;
  readonly retry: { readonly attempts: number; readonly backoff: Backoff };
}

/**
 * Brings one row forward with the events of a call: one strongly consistent read of the row, at most one
 * read of the stream to fill a gap, one conditional write. A lost race re-reads and tries again after a
 * jittered, growing delay; a row that loses every try fails with ConcurrentModificationError.
 */
export async function applyRow<State>(
  runtime: RowRuntime<State>,
  group: RowGroup<StreamEvent, Readonly<Record<string, unknown>>>,
  inHand: InHand<StreamEvent>,
): Promise<RowOutcome> {
  const failed = (error: unknown): RowOutcome => ({ status: 'failed', key: group.key, streamId: group.streamId, error, positions: group.positions });
  try {
    const streamId = runtime.stream.parseStreamId(group.streamId);
    for (let attempt = 0; attempt < runtime.retry.attempts; attempt++) {
      if (attempt > 0) await sleep(backoffDelay(attempt - 1, runtime.retry.backoff));
      const outcome = await tryApply(runtime, group, inHand, streamId);
      if (outcome !== 'lost') return outcome;
    }
    return failed(new ConcurrentModificationError(runtime.name, group.key, runtime.retry.attempts));
  } catch (error) {
    return failed(error);
  }
}

async function tryApply<State>(
  runtime: RowRuntime<State>,
  group: RowGroup<StreamEvent, Readonly<Record<string, unknown>>>,
  inHand: InHand<StreamEvent>,
  streamId: Record<string, string>,
): Promise<RowOutcome | 'lost'> {
  const row = await readRow<State>(runtime.readModel, runtime.checkpoint, group.key);
  const checkpoint = row.checkpoint;
  const alreadyApplied = group.events.filter((event) => event.version <= checkpoint);
  const highest = group.events[group.events.length - 1]?.version ?? 0;
  const unchanged = (extra: { skipped?: StreamEvent[]; rejected?: { event: StreamEvent; error: unknown }[] } = {}): RowOutcome => ({
    status: 'applied',
    key: group.key,
    streamId: group.streamId,
    applied: [],
    alreadyApplied,
    skipped: extra.skipped ?? [],
    rejected: extra.rejected ?? [],
    version: checkpoint,
    positions: group.positions,
  });
  if (highest <= checkpoint) return unchanged();

  const events = (await eventsAbove(runtime.stream, group.streamId, inHand, checkpoint, highest)).filter(
    (event) => runtime.rowIdOf(event) === group.rowId,
  );
  const folded = await foldRow({
    state: row.state,
    checkpoint,
    events,
    initial: (event) => runtime.initial(streamId, event),
    evolve: runtime.evolve,
    ...(runtime.terminal === undefined ? {} : { terminal: runtime.terminal }),
  });
  if (!folded.changed || folded.state === undefined) return unchanged(folded);

  const item = rowItem(runtime.readModel, runtime.checkpoint, runtime.toItem(folded.state, { streamId, key: group.key }), folded.version, row.createdAt);
  assertSameRow(runtime.name, runtime.readModel, group.key, item);
  if (!(await writeRow(runtime.readModel, runtime.checkpoint, row, item))) return 'lost';
  return {
    status: 'applied',
    key: group.key,
    streamId: group.streamId,
    applied: folded.applied,
    alreadyApplied,
    skipped: folded.skipped,
    rejected: folded.rejected,
    version: folded.version,
    positions: group.positions,
  };
}

/**
 * The stream's events from checkpoint + 1 to `highest`: from the call's own events when they hold every
 * version (those of other rows and ignored ones count), else from ONE strongly consistent read bounded
 * at `highest`. What is read is kept in hand for the call's other rows and retries.
 */
async function eventsAbove(
  stream: AnyEventStream,
  streamId: string,
  inHand: InHand<StreamEvent>,
  checkpoint: number,
  highest: number,
): Promise<StreamEvent[]> {
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

function assertSameRow(name: string, readModel: ReadModel, key: Readonly<Record<string, unknown>>, item: Record<string, unknown>): void {
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
