import type { AnyEventStream, StreamEvent } from '../store';
import { applyRow, withCallSignal, withRecords, rowIdOf, type Operation, type RowRuntime, callContext, planRows } from './engine';
import { rebuiltRecords } from './parking';
import { Attr, inSpan, keyText, projectionSpan } from '../telemetry';

/** What a rebuild wrote: each row's key and its checkpoint. No events: a rebuild replays no side effects. */
export interface RebuildResult {
  readonly rows: ReadonlyArray<{ readonly key: Readonly<Record<string, unknown>>; readonly version: number }>;
}

/**
 * A rebuild of a row: re-derived from version 1 of each source instance it records up to its checkpoint,
 * from no state, moving no checkpoint and writing no outbox message (events past a checkpoint are left to
 * the next delivery, which applies them). Its records are re-derived too (it runs with `rebuiltRecords`): the events it records as skipped
 * are passed over again, and every recorded error keeps its name and code but not its message, written from
 * the events as they read then. A row that does not exist, or folds to nothing, is left alone (a stub's
 * records are re-derived); a parked row stays parked; a failure fails the row, counting and writing nothing.
 */
function rebuilding<State>(): Operation<State> {
  return {
    ranges: (_group, checkpoints) =>
      [...checkpoints].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([instance, to]) => ({ instance, from: 0, to })),
    start: () => ({ state: undefined, removed: false }),
    messages: false,
    writesUnchanged: (row, state) => row.exists && (state !== undefined || row.stub),
    prepare: async ({ group }) => ({ fold: group }),
    failed: async () => 'failed',
  };
}

/**
 * Re-derives every row a stream instance's events address, from version 1 up to each row's checkpoint,
 * through the row engine: each row is written conditioned on what was read, and a lost race re-reads and
 * folds again. Rejects with the first row's error.
 */
export async function rebuildStream<State>(
  projection: RowRuntime<State>,
  stream: AnyEventStream,
  streamId: string,
  signal?: AbortSignal,
): Promise<RebuildResult> {
  const attributes = { [Attr.streamName]: stream.name, [Attr.streamId]: streamId };
  return inSpan(projectionSpan('rebuild', projection.name, attributes), () => rebuildRows(projection, stream, streamId, signal));
}

async function rebuildRows<State>(
  projection: RowRuntime<State>,
  stream: AnyEventStream,
  streamId: string,
  signal: AbortSignal | undefined,
): Promise<RebuildResult> {
  const runtime = withRecords(withCallSignal(projection, signal), rebuiltRecords);
  const events = await stream.read(streamId, { signal });
  const plan = planRows(
    events.map((event, position) => ({ event, position })),
    runtime.keyOf,
    (key) => rowIdOf(runtime, key),
  );
  const rows: Array<{ key: Readonly<Record<string, unknown>>; version: number }> = [];
  for (const group of plan.rows.values()) {
    const outcome = await applyRow({ runtime, group, call: callContext(plan.inHand, signal), operation: rebuilding<State>() });
    if (outcome.status === 'failed') throw outcome.error;
    rows.push({ key: group.key, version: 'version' in outcome ? outcome.version : 0 });
  }
  const failure = plan.keyFailures[0];
  if (failure !== undefined) throw failure.error;
  return { rows };
}

/** Re-derives one multi-source row from every source instance it records, up to their checkpoints. */
export async function rebuildRow<State>(
  projection: RowRuntime<State>,
  key: Readonly<Record<string, unknown>>,
  signal?: AbortSignal,
): Promise<Readonly<Record<string, number>>> {
  return inSpan(projectionSpan('rebuild', projection.name, { [Attr.rowKey]: keyText(key) }), async () => {
    const runtime = withRecords(withCallSignal(projection, signal), rebuiltRecords);
    const group = { rowId: rowIdOf(runtime, key), key, streamId: '', events: [] as StreamEvent[], positions: [] as number[] };
    const outcome = await applyRow({ runtime, group, call: callContext(undefined, signal), operation: rebuilding<State>() });
    if (outcome.status === 'failed') throw outcome.error;
    return 'sources' in outcome ? outcome.sources : {};
  });
}
