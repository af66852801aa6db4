import { withSignal } from '../../dynamo';
import { withCapacity } from '../../telemetry';
import type { ApplyResult, Entry, FailedOutcome } from '../../outcome';
import type { StreamEvent } from '../../store';
import { Semaphore, type Logger } from '../../util';
import { applyRow, type RowApplication, type RowResult } from './apply-row';
import { callContext } from './call-context';
import type { Operation } from './operation';
import { planRows, type Key, type RowGroup } from './plan-rows';
import { readRows, rowFromItem } from './read-rows';
import type { KnownRow } from './row-memory';
import { rowIdOf, type RowRuntime } from './row-store';
import type { Turn } from './row-turns';
import type { SharedRowReads } from './shared-row-reads';

/** A call of `applyEntries`: its events, the operation each row goes through, and the caller's signal and logger. */
export interface EntriesCall<State> {
  readonly entries: ReadonlyArray<Entry<StreamEvent>>;
  readonly operation: Operation<State>;
  /**
   * Once aborted, no further row starts and the requests in flight are cut short: those rows fail with the
   * signal's reason (their records are delivered again; the checkpoints keep what was written).
   */
  readonly signal?: AbortSignal | undefined;
  /** Also told what happens to failing rows (the projection's own logger is, in any case). */
  readonly logger?: Logger | undefined;
  /** Where the rows are read, with those of calls running beside this one (a backfill's); else alone. */
  readonly rowReads?: SharedRowReads | undefined;
}

/**
 * Applies a call's events: planned per row (sorted, deduplicated), every row read in as few requests as
 * DynamoDB allows (or remembered: see `rowsOf`; or, where another call of this process has it, handed on
 * by that call: see `RowTurns`), then each row brought forward (concurrently across rows) by `applyRow`,
 * through the call's operation. Never rejects for a row's error: each row gets its own outcome.
 */
export async function applyEntries<State>(
  projection: RowRuntime<State>,
  options: EntriesCall<State>,
): Promise<ApplyResult<StreamEvent, Key, RowResult>> {
  const { entries, operation } = options;
  const runtime = withCallSignal(projection, options.signal);
  const ours = entries.filter((entry) => runtime.streams.has(entry.event.streamName));
  const foreign = entries.filter((entry) => !runtime.streams.has(entry.event.streamName));
  const plan = planRows(ours, runtime.keyOf, (key) => rowIdOf(runtime, key));
  const groups = [...plan.rows.values()];
  // Taken at once, before anything is awaited: see `RowTurns.enter`.
  const turns = runtime.turns?.enter(groups.map((group) => group.rowId));
  const call = callContext(plan.inHand, options.signal, options.logger);
  let rows: RowResult[];
  try {
    const prefetched = await rowsOf(runtime, groups, options, turns);
    const limit = new Semaphore(runtime.concurrency);
    rows = await Promise.all(
      groups.map((group, index) =>
        limit.use(async () => {
          const turn = turns?.[index];
          try {
            const start = prefetched[index] ?? (await rowAfterTurn(runtime, group, turn, options));
            const result = await applyRow({ runtime, group, call, operation, ...start, turn });
            // A row that failed or parked is read by the next call: what it is now is not known here.
            if (result.status !== 'applied') turn?.leave(undefined);
            return result;
          } finally {
            turn?.release();
          }
        }),
      ),
    );
  } finally {
    // Whatever the call ended in, no row is left held.
    for (const turn of turns ?? []) turn.release();
  }
  const keyFailures = plan.keyFailures.map<FailedOutcome>(({ entry, error }) => ({
    status: 'failed',
    key: undefined,
    streamId: entry.event.streamId,
    error,
    applied: [],
    positions: [entry.position],
  }));
  // Events of no row: those `key` gave none, and those of streams the projection does not fold, in the call's order.
  const addressNoRow = new Set([...plan.ignored, ...foreign]);
  const ignored = entries.filter((entry) => addressNoRow.has(entry));
  return {
    outcomes: [...rows, ...keyFailures],
    ignored: ignored.map((entry) => entry.position).sort((a, b) => a - b),
    ignoredEvents: ignored.map((entry) => entry.event),
    stats: call.stats,
  };
}

type RowStart<State> = Pick<RowApplication<State>, 'prefetched' | 'remembered'>;

/**
 * Each group's row as this process last wrote it (see `RowMemory`; not in a backfill, whose rows others
 * wrote), else as read for the call in as few requests as DynamoDB allows. A row whose read failed is read
 * by its own application, which reports its own error. A row another call of this process has (its turn
 * `waits`) is neither: it is taken after that call (`rowAfterTurn`), and is `undefined` here.
 */
async function rowsOf<State>(
  runtime: RowRuntime<State>,
  groups: ReadonlyArray<RowGroup<StreamEvent, Key>>,
  options: EntriesCall<State>,
  turns: ReadonlyArray<Turn> | undefined,
): Promise<Array<RowStart<State> | undefined>> {
  const later = groups.map((_, index) => turns?.[index]?.waits === true);
  const remembered = groups.map((group, index) => (later[index] === true ? undefined : rememberedRow(runtime, group, options)));
  const toRead = groups.flatMap((group, index) => (remembered[index] === undefined && later[index] !== true ? [{ index, key: group.key }] : []));
  const keys = toRead.map(({ key }) => key);
  const read =
    keys.length === 0
      ? []
      : await (options.rowReads?.read<State>(keys) ?? readRows<State>(runtime.store, keys, options.signal)).catch(() => undefined);
  const readOf = new Map(toRead.map(({ index }, at) => [index, read?.[at]]));
  return remembered.map((known, index) => {
    if (later[index] === true) return undefined;
    if (known === undefined) return { prefetched: readOf.get(index), remembered: false };
    turns?.[index]?.leave(known);
    return startFrom(runtime, known);
  });
}

/** The row as this process last wrote it, or known not to exist (see `RowMemory`); `undefined`: read it. */
function rememberedRow<State>(runtime: RowRuntime<State>, group: RowGroup<StreamEvent, Key>, options: EntriesCall<State>): KnownRow | undefined {
  const memory = options.rowReads === undefined ? runtime.memory : undefined;
  return memory?.take(group.rowId, group);
}

/** A row known without a read, as a fold starts from it: a write it fails is no race (see `applyRow`). */
function startFrom<State>(runtime: RowRuntime<State>, known: KnownRow): RowStart<State> {
  return { prefetched: rowFromItem<State>(runtime.store, known === 'absent' ? undefined : known.item), remembered: true };
}

/**
 * The row once the call of this process before this one is done with it: as that call left it when it
 * knows, else as remembered, else `undefined` (`applyRow` reads it).
 */
async function rowAfterTurn<State>(
  runtime: RowRuntime<State>,
  group: RowGroup<StreamEvent, Key>,
  turn: Turn | undefined,
  options: EntriesCall<State>,
): Promise<RowStart<State>> {
  const known = (await turn?.taken(options.signal)) ?? rememberedRow(runtime, group, options);
  turn?.leave(known);
  return known === undefined ? { prefetched: undefined, remembered: false } : startFrom(runtime, known);
}

/**
 * The runtime as one call sees it: every request of its rows carries the call's signal, and tells the
 * span it is sent in what it consumed (when one is traced).
 */
export function withCallSignal<State>(runtime: RowRuntime<State>, signal: AbortSignal | undefined): RowRuntime<State> {
  const documents = withCapacity(withSignal(runtime.store.documents, signal));
  return documents === runtime.store.documents ? runtime : { ...runtime, store: { ...runtime.store, documents } };
}
