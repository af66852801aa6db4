import type { ParkedRow } from '../../outcome';
import { instanceKey, type StreamEvent } from '../../store';
import type { CallContext } from './call-context';
import type { FailedEvent } from './fold-row';
import type { Key, RowGroup } from './plan-rows';
import type { ReadRow } from './read-rows';
import type { RowRuntime } from './row-store';

type Group = RowGroup<StreamEvent, Key>;

/** The versions of one source instance a fold takes: after `from`, through `to`. */
export interface FoldRange {
  /** The source instance (`instanceKey`: `<stream name>#<stream id>`). */
  readonly instance: string;
  readonly from: number;
  readonly to: number;
}

/** The state a fold starts from: the row's, or none (the row re-derived from its first event). */
export interface FoldStart<State> {
  readonly state: State | undefined;
  readonly removed: boolean;
}

/**
 * How a fold goes, as the operation running it decides: what it folds, from which state, whether it
 * writes outbox messages and when it writes although nothing changed. `buildWrite` runs these and never
 * asks which operation it serves. What the row's records become is their strategy's (`RecordStrategy`).
 */
export interface Fold<State> {
  /** What to fold: a range of versions per source instance, given the row's checkpoints (in a fixed order of instances). */
  readonly ranges: (group: Group, checkpoints: ReadonlyMap<string, number>) => ReadonlyArray<FoldRange>;
  /** The state the fold starts from. */
  readonly start: (row: ReadRow<State>) => FoldStart<State>;
  /** Put the messages of what the fold applies in the row's transaction (when the projection has an outbox). */
  readonly messages: boolean;
  /** Whether to write the row although the fold moved no checkpoint (`state`: what it would write). */
  readonly writesUnchanged: (row: ReadRow<State>, state: State | undefined) => boolean;
}

/** What a row's attempt does before its fold: fold these events, report the row parked, or read it again (`'lost'`). */
export type Prepared = { readonly fold: Group } | { readonly parked: ParkedRow } | 'lost';

/**
 * What a row's attempt does before its fold when its write joins a transaction of the caller's: fold these
 * events, or leave the row (and so the transaction) to another path, `left` saying why.
 */
export type PreparedInTransaction<Left> = { readonly fold: Group } | { readonly left: Left };

/** What an attempt's failure ends in: the row failed, parked, or read again (`'lost'`: it changed since it was read). */
export type FailureHandled = 'failed' | ParkedRow | 'lost';

/** What an operation's hooks are told about the row at hand. */
export interface RowAt<State> {
  /** The runtime as the call sees it (its requests carry the call's signal). */
  readonly runtime: RowRuntime<State>;
  readonly call: CallContext<StreamEvent>;
  /** The call's events of the row. */
  readonly group: Group;
  /** The row as read for this attempt. */
  readonly row: ReadRow<State>;
}

/**
 * An operation on rows that the engine runs (`applyRow`, `applyEntries`) and never inspects: what each
 * attempt folds (`prepare`, then the `Fold`), and what a failure does (`failed`). Each feature above the
 * engine supplies one (see docs/contributing.md); a new one goes beside them, not into the engine.
 */
export interface Operation<State> extends Fold<State> {
  /** Before each attempt's fold, with the row as read. */
  readonly prepare: (at: RowAt<State>) => Promise<Prepared>;
  /** A failure of the attempt (`at.row`: the row as it is now, after what came before the failing event was written). */
  readonly failed: (at: RowAt<State>, failure: FailedEvent<StreamEvent>) => Promise<FailureHandled>;
}

/**
 * An operation whose writes join a transaction of the caller's instead of being sent (`buildTransaction`):
 * nothing is sent, so no race is lost and no failure is handled (the caller's transaction leaves the rows
 * to another path); each row is folded or left.
 */
export interface TransactionOperation<State, Left> extends Fold<State> {
  /** Before the row's fold, with the row as read. */
  readonly prepare: (at: RowAt<State>) => Promise<PreparedInTransaction<Left>>;
}

/**
 * The ranges that bring a row forward with a call's events: per source instance, from the row's
 * checkpoint through the highest event of the call (none where the row is at or past it).
 */
export function rangesAhead(group: Group, checkpoints: ReadonlyMap<string, number>): FoldRange[] {
  const highest = new Map<string, StreamEvent>();
  for (const event of group.events) highest.set(instanceKey(event), event); // events are in version order
  const ranges: FoldRange[] = [];
  for (const [instance, event] of [...highest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const from = checkpoints.get(instance) ?? 0;
    if (event.version > from) ranges.push({ instance, from, to: event.version });
  }
  return ranges;
}

/** A fold from the row as read, which moves its checkpoints on with the events, keeping whatever record it has. */
export function forward<State>(): Fold<State> {
  return {
    ranges: rangesAhead,
    start: (row) => ({ state: row.state, removed: row.removed }),
    messages: true,
    writesUnchanged: () => false,
  };
}
