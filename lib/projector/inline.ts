import { instanceKey, type InlineDeferral, type InlinePlan, type StreamEvent } from '../store';
import { buildTransaction, forward, type RowRuntime, type TransactionOperation } from './engine';
import { parkedOf } from './parking';

/**
 * An append's inline projection, an operation like the others whose writes join the append's transaction
 * (`buildTransaction`): a row is folded only when its checkpoint is at `previousVersion`, the version right
 * before the appended events. Then the fold needs no event but the appended ones (no gap read), and the row
 * condition plus the append's contiguity check make the row and the events commit together or not at all.
 * A row that is behind, or parked, is left to the projector (`'behind'`, `'parked'`), which converges on the
 * same row through the checkpoint: it finds these events already applied.
 */
function inlineAppend<State>(previousVersion: number): TransactionOperation<State, InlineDeferral> {
  return {
    ...forward<State>(),
    prepare: async ({ runtime, group, row }) => {
      if (parkedOf(row) !== undefined) return { left: 'parked' };
      const checkpoints = runtime.store.checkpoints.forGroup(runtime.name, group, row);
      const at = checkpoints.get(instanceKey(group.events[0] as StreamEvent)) ?? 0;
      return at === previousVersion ? { fold: group } : { left: 'behind' };
    },
  };
}

/**
 * A projection's rows for events about to be appended right after `previousVersion`, as Puts for the
 * append's transaction (see `InlineProjection.planInline`), or why the rows are left to the projector: an
 * event its `key`, `evolve` or model refused (`'failed'`), outbox messages past one transaction
 * (`'limits'`), or a row the operation left. An aborted `signal` rejects with its reason, as the append does.
 */
export async function planInline<State>(
  runtime: RowRuntime<State>,
  events: ReadonlyArray<StreamEvent>,
  previousVersion: number,
  signal?: AbortSignal,
): Promise<InlinePlan> {
  const entries = events.map((event, position) => ({ event, position }));
  const built = await buildTransaction(runtime, { entries, operation: inlineAppend<State>(previousVersion), signal });
  switch (built.kind) {
    case 'writes':
      return { kind: 'write', puts: built.puts, applied: built.applied };
    case 'left':
      return { kind: 'deferred', reason: built.reason };
    case 'failed':
      return { kind: 'deferred', reason: 'failed', error: built.error };
    case 'more':
      return { kind: 'deferred', reason: 'limits' };
  }
}
