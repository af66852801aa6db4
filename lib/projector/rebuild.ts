import type { AnyEventStream, StreamEvent } from '../store';
import { applyRow, withCallSignal, rowIdOf, type RowRuntime, callContext, planRows } from './engine';

/** What a rebuild wrote: each row's key and its checkpoint. No events: a rebuild replays no side effects. */
export interface RebuildResult {
  readonly rows: ReadonlyArray<{ readonly key: Readonly<Record<string, unknown>>; readonly version: number }>;
}

/**
 * Re-derives every row a stream instance's events address, from version 1 up to each row's checkpoint,
 * through the row engine (`'rebuild'` folds): each row is written conditioned on what was read, and a
 * lost race re-reads and folds again. Rejects with the first row's error.
 */
export async function rebuildStream<State>(
  projection: RowRuntime<State>,
  stream: AnyEventStream,
  streamId: string,
  signal?: AbortSignal,
): Promise<RebuildResult> {
  const runtime = withCallSignal(projection, signal);
  const events = await stream.read(streamId, { signal });
  const plan = planRows(
    events.map((event, position) => ({ event, position })),
    runtime.keyOf,
    (key) => rowIdOf(runtime, key),
  );
  const rows: Array<{ key: Readonly<Record<string, unknown>>; version: number }> = [];
  for (const group of plan.rows.values()) {
    const outcome = await applyRow({ runtime, group, call: callContext(plan.inHand, signal), fold: { mode: 'rebuild' } });
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
  const runtime = withCallSignal(projection, signal);
  const group = { rowId: rowIdOf(runtime, key), key, streamId: '', events: [] as StreamEvent[], positions: [] as number[] };
  const outcome = await applyRow({ runtime, group, call: callContext(undefined, signal), fold: { mode: 'rebuild' } });
  if (outcome.status === 'failed') throw outcome.error;
  return 'sources' in outcome ? outcome.sources : {};
}
