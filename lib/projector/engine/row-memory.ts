import type { StreamEvent } from '../../store';
import type { Key, RowGroup } from './plan-rows';

type Group = RowGroup<StreamEvent, Key>;
type Item = Readonly<Record<string, unknown>>;

/** What a process knows of a row without reading it: the item it last wrote, or that there is none yet. */
export type KnownRow = { readonly item: Item } | 'absent';

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
  private readonly items = new Map<string, Item>();

  constructor(readonly options: RowMemoryOptions) {}

  /** The row of `id` as last written here, or none where the kind says there can't be one; `undefined`: read it. */
  take(id: string, group: Group): KnownRow | undefined {
    const item = this.items.get(id);
    if (item !== undefined) {
      this.items.delete(id);
      return { item };
    }
    return this.options.absentFor?.(group) === true ? 'absent' : undefined;
  }

  /** A call's last write of the row of `id` went through with `item`. */
  keep(id: string, item: Item): void {
    this.items.delete(id);
    this.items.set(id, item);
    // Map order is write order: the first entry is the least recently written.
    if (this.items.size > this.options.rows) this.items.delete(this.items.keys().next().value as string);
  }

  /** How many rows are kept. */
  get size(): number {
    return this.items.size;
  }
}
