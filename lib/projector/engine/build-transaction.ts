import type { Entry } from '../../outcome';
import type { StreamEvent } from '../../store';
import { withCallSignal } from './apply-entries';
import { buildWrite } from './build-write';
import { callContext } from './call-context';
import { EventFailure } from './fold-row';
import type { TransactionOperation } from './operation';
import { planRows } from './plan-rows';
import { readRows } from './read-rows';
import { rowIdOf, type RowRuntime } from './row-store';
import { extraPutInput, putRow, type RowPut } from './write-row';

/** A Put of a caller's transaction: a row's, conditioned on the row as read, or one of its outbox messages. */
export type TransactionPut = RowPut | ReturnType<typeof extraPutInput>;

/** What building a call's rows for a transaction of the caller's came to. */
export type TransactionBuild<Left> =
  /** Every row's write (none for a row the events leave as it was), and the events the rows fold, in version order. */
  | { readonly kind: 'writes'; readonly puts: ReadonlyArray<TransactionPut>; readonly applied: ReadonlyArray<StreamEvent> }
  /** The operation left a row to another path. */
  | { readonly kind: 'left'; readonly reason: Left }
  /** An event's key or fold failed. */
  | { readonly kind: 'failed'; readonly error: unknown }
  /** A row's write does not fit one transaction (its outbox messages take several). */
  | { readonly kind: 'more' };

/** A call whose rows' writes join a transaction of the caller's. */
export interface TransactionCall<State, Left> {
  readonly entries: ReadonlyArray<Entry<StreamEvent>>;
  readonly operation: TransactionOperation<State, Left>;
  /** Reaches the rows' reads: aborted, none is sent, and one in flight is cut short. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Builds the writes of a call's rows without sending them, for a transaction of the caller's (an append's
 * inline projections): the events planned per row as a delivery's would be, every row read strongly
 * consistent in as few requests as DynamoDB allows, each prepared by the operation, folded by `buildWrite`
 * and its write built as every row write is (`putRow`), with its outbox messages. The transaction takes
 * every row or none, so the first row that can't be written in it ends the build, with why. Rejects with
 * what a read or a fold threw.
 */
export async function buildTransaction<State, Left>(
  projection: RowRuntime<State>,
  options: TransactionCall<State, Left>,
): Promise<TransactionBuild<Left>> {
  const { operation, signal } = options;
  const runtime = withCallSignal(projection, signal);
  const entries = options.entries.filter((entry) => runtime.streams.has(entry.event.streamName));
  const plan = planRows(entries, runtime.keyOf, (key) => rowIdOf(runtime, key));
  const keyFailure = plan.keyFailures[0];
  if (keyFailure !== undefined) return { kind: 'failed', error: keyFailure.error };
  const groups = [...plan.rows.values()];
  if (groups.length === 0) return { kind: 'writes', puts: [], applied: [] };
  const rows = await readRows<State>(
    runtime.store,
    groups.map((group) => group.key),
    signal,
  );
  const call = callContext(plan.inHand, signal);
  const puts: TransactionPut[] = [];
  const applied: StreamEvent[] = [];
  for (const [index, group] of groups.entries()) {
    const row = rows[index];
    if (row === undefined) continue;
    const prepared = await operation.prepare({ runtime, call, group, row });
    if ('left' in prepared) return { kind: 'left', reason: prepared.left };
    const built = await buildWrite({ runtime, group: prepared.fold, call, row, fold: operation }).catch((error: unknown) => {
      throw error instanceof EventFailure ? error.cause : error;
    });
    if (built.step.failure !== undefined) return { kind: 'failed', error: built.step.failure.cause };
    if (built.step.more) return { kind: 'more' };
    applied.push(...built.step.applied);
    if (built.write === undefined) continue;
    puts.push(putRow(runtime.store, row, built.write.item).input, ...built.write.extras.map(extraPutInput));
  }
  return { kind: 'writes', puts, applied: applied.sort((x, y) => x.version - y.version) };
}
