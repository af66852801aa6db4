import type { StreamEvent } from '../../store';
import type { Key, RowGroup } from './plan-rows';
import { rowFromItem, type ReadRow } from './read-rows';
import type { RowStore } from './row-store';

type Group = RowGroup<StreamEvent, Key>;

/** What a kind of row lets the engine remember of its rows, instead of reading them (see `RowMemory`). */
export interface RowMemoryOptions {
  /** How many rows a process keeps, the least recently written dropped first. */
  readonly rows: number;
  /**
   * Whether a row that nothing was remembered of can be taken not to exist yet for `group`'s events (a
   * reaction's progress in an instance whose first event this is): its write is then conditioned on that.
   */
  readonly absentFor?: ((group: Group) => boolean) | undefined;
}

/**
 * The rows this process wrote last, as it wrote them, so that the next call on one need not read it first.
 * Safe whatever happened since: every row write is conditioned on the row being as it was read (its
 * checkpoint, revision, records and the ids of its last writes: see `rowCondition`), so a row another writer
 * changed, removed or parked meanwhile fails the write, which reads the row and tries again at once. Worth it
 * where a row is mostly written by one process in turn (a reaction's progress in a source instance, whose
 * events a shard delivers to one consumer): its read, strongly consistent, is one read unit per event saved.
 *
 * A row is taken out when a call folds it and kept again only after that call's last write went through, so
 * two calls never fold one remembered copy, and a failed or parked row is read by the next call.
 */
export class RowMemory {
  private readonly rows = new Map<string, ReadRow<unknown>>();

  constructor(readonly options: RowMemoryOptions) {}

  /** The row of `id` as last written here, or a row not there yet where the kind says it can't be; `undefined`: read it. */
  take<State>(id: string, group: Group): ReadRow<State> | undefined {
    const row = this.rows.get(id);
    if (row !== undefined) {
      this.rows.delete(id);
      return row as ReadRow<State>;
    }
    return this.options.absentFor?.(group) === true ? rowFromItem<State>(NO_STORE, undefined) : undefined;
  }

  /** A call's last write of the row of `id` went through with `item`. */
  keep(store: RowStore, id: string, item: Readonly<Record<string, unknown>>): void {
    this.rows.delete(id);
    this.rows.set(id, rowFromItem(store, item));
    // Map order is write order: the first entry is the least recently written.
    if (this.rows.size > this.options.rows) this.rows.delete(this.rows.keys().next().value as string);
  }

  /** How many rows are kept. */
  get size(): number {
    return this.rows.size;
  }
}

// A row that does not exist reads nothing of its store.
const NO_STORE = undefined as unknown as RowStore;
