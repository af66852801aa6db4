import { ConcurrentModificationError } from '../errors';
import type { StreamEvent } from '../store';
import { backoffDelay } from '../util/backoff';
import { sleep } from '../util/sleep';
import type { RowRuntime } from './apply-row';
import { foldRow } from './fold-row';
import { readRow, rowItem, writeRow } from './row-store';

/** What a rebuild wrote: each row's key and its checkpoint. No events: a rebuild replays no side effects. */
export interface RebuildResult {
  readonly rows: ReadonlyArray<{ readonly key: Readonly<Record<string, unknown>>; readonly version: number }>;
}

/**
 * Re-derives every row of a stream instance from version 1, ignoring the rows' state. Each row is written
 * conditioned on the checkpoint it was read with; a lost race re-reads and folds again.
 */
export async function rebuildStream<State>(
  runtime: RowRuntime<State>,
  streamId: string,
  keyOf: (event: StreamEvent) => Readonly<Record<string, unknown>> | undefined,
  rowIdOf: (key: Readonly<Record<string, unknown>>) => string,
): Promise<RebuildResult> {
  const events = await runtime.stream.read(streamId);
  const keys = new Map<string, Readonly<Record<string, unknown>>>();
  for (const event of events) {
    const key = keyOf(event);
    if (key !== undefined) keys.set(rowIdOf(key), key);
  }
  const rows = [];
  for (const [rowId, key] of keys) rows.push({ key, version: await rebuildRow(runtime, streamId, events, rowId, key) });
  return { rows };
}

async function rebuildRow<State>(
  runtime: RowRuntime<State>,
  streamId: string,
  events: StreamEvent[],
  rowId: string,
  key: Readonly<Record<string, unknown>>,
): Promise<number> {
  const parsedId = runtime.stream.parseStreamId(streamId);
  for (let attempt = 0; attempt < runtime.retry.attempts; attempt++) {
    if (attempt > 0) await sleep(backoffDelay(attempt - 1, runtime.retry.backoff));
    const row = await readRow<State>(runtime.store, key);
    const known = events[events.length - 1]?.version ?? 0;
    // The row may already reflect events appended since the stream was read: fold at least that far.
    if (row.checkpoint > known) events.push(...(await runtime.stream.readFrom(streamId, known, { toVersion: row.checkpoint })));
    const folded = await foldRow({
      state: undefined,
      checkpoint: 0,
      events: events.filter((event) => runtime.rowIdOf(event) === rowId),
      initial: (event) => runtime.initial(parsedId, event),
      evolve: runtime.evolve,
      ...(runtime.terminal === undefined ? {} : { terminal: runtime.terminal }),
      ...(runtime.recreate === undefined ? {} : { recreate: runtime.recreate }),
    });
    const written = folded.removed ? folded.lastState : folded.state;
    if (written === undefined) return row.checkpoint;
    const item = rowItem(runtime.store, row, runtime.toItem(written, { streamId: parsedId, key }), { version: folded.version, removed: folded.removed });
    // No outbox messages: a rebuild replays no side effects.
    if (await writeRow(runtime.store, row, item)) return folded.version;
  }
  throw new ConcurrentModificationError(runtime.name, key, runtime.retry.attempts);
}
