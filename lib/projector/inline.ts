import { instanceKey, type InlinePlan, type StreamEvent, type TransactPut } from '../store';
import { EventFailure, withCallSignal, callContext, planRows, readRows, putRow, buildWrite, forward, rowIdOf, type RowRuntime } from './engine';
import { parkedOf } from './parking';

/**
 * A projection's rows for events about to be appended right after `previousVersion`, as Puts for the
 * append's transaction. The row engine's own pieces do it: the events planned per row as a delivery would
 * be, each row read strongly consistent, folded by `buildWrite` and conditioned by `rowPut` exactly as the
 * projector's write. A row applies inline only when its checkpoint is at `previousVersion`: then the fold
 * needs no event but the appended ones (no gap read), and the row condition plus the append's contiguity
 * check make the row and the events commit together or not at all. Anything else is left to the
 * projector, which converges on the same row through the checkpoint: it finds these events already applied.
 * An aborted `signal` rejects with its reason, as the append does.
 */
export async function planInline<State>(
  runtime: RowRuntime<State>,
  events: ReadonlyArray<StreamEvent>,
  previousVersion: number,
  signal?: AbortSignal,
): Promise<InlinePlan> {
  const entries = events.filter((event) => runtime.streams.has(event.streamName)).map((event, position) => ({ event, position }));
  const plan = planRows(entries, runtime.keyOf, (key) => rowIdOf(runtime, key));
  const keyFailure = plan.keyFailures[0];
  if (keyFailure !== undefined) return { kind: 'deferred', reason: 'failed', error: keyFailure.error };
  const groups = [...plan.rows.values()];
  if (groups.length === 0) return { kind: 'write', puts: [], applied: [] };
  // The append's signal reaches the rows' reads: an aborted append sends none, and one in flight is cut short.
  const rows = await readRows<State>(
    withCallSignal(runtime, signal).store,
    groups.map((group) => group.key),
    signal,
  );
  // The appended events are all the fold may use: a row that needs another is behind, and waits for the projector.
  const call = callContext(plan.inHand);
  const puts: TransactPut[] = [];
  const applied: StreamEvent[] = [];
  for (const [index, group] of groups.entries()) {
    const row = rows[index];
    if (row === undefined) continue;
    if (parkedOf(row) !== undefined) return { kind: 'deferred', reason: 'parked' };
    const checkpoints = runtime.store.checkpoints.forGroup(runtime.name, group, row);
    if ((checkpoints.get(instanceKey(group.events[0] as StreamEvent)) ?? 0) !== previousVersion) return { kind: 'deferred', reason: 'behind' };
    const folded = await buildWrite({ runtime, group, call, row, fold: forward<State>() }).catch((error: unknown) => {
      throw error instanceof EventFailure ? error.cause : error;
    });
    if (folded.step.failure !== undefined) return { kind: 'deferred', reason: 'failed', error: folded.step.failure.cause };
    // The outbox messages did not fit one write: the projector writes them over several.
    if (folded.step.more) return { kind: 'deferred', reason: 'limits' };
    applied.push(...folded.step.applied);
    if (folded.write === undefined) continue;
    puts.push(
      putRow(runtime.store, row, folded.write.item).input,
      ...folded.write.extras.map((extra) => ({ TableName: extra.table, Item: extra.item })),
    );
  }
  return { kind: 'write', puts, applied: applied.sort((x, y) => x.version - y.version) };
}
