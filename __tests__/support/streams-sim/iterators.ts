import { randomBytes } from 'node:crypto';

/** What an iterator points at: a shard, and the position right before the next record to read. */
export interface IteratorState {
  readonly shardId: string;
  readonly after: bigint;
  readonly issuedAt: number;
  /** Empty pages this iterator's chain still answers before its records. */
  readonly emptyPagesLeft: number;
}

/**
 * The iterators handed out. Like the service's, they are opaque strings, stay usable (and repeatable)
 * until they expire, and a NextShardIterator is a new iterator with its own lifetime.
 */
export class IteratorRegistry {
  private readonly issued = new Map<string, IteratorState>();
  private readonly prefix = `sim-${randomBytes(4).toString('hex')}`;
  private counter = 0;

  constructor(private readonly lifetimeMs: number) {}

  issue(state: IteratorState): string {
    // The issue time is in the string, so that an iterator forgotten by `sweep` still answers as expired.
    const iterator = `${this.prefix}-${++this.counter}-${state.issuedAt}-${state.shardId}`;
    this.issued.set(iterator, state);
    return iterator;
  }

  /** The iterator's state; `undefined` for one never issued, 'expired' for one past its lifetime. */
  lookup(iterator: string, now: number): IteratorState | 'expired' | undefined {
    const state = this.issued.get(iterator);
    if (state === undefined)
      return iterator.startsWith(`${this.prefix}-`) && this.issuedAt(iterator) + this.lifetimeMs <= now ? 'expired' : undefined;
    return now - state.issuedAt >= this.lifetimeMs ? 'expired' : state;
  }

  private issuedAt(iterator: string): number {
    return Number(iterator.slice(this.prefix.length + 1).split('-')[1] ?? Number.NaN);
  }

  /** Forgets iterators expired for a while, so that a long run does not keep them all. */
  sweep(now: number): void {
    for (const [iterator, state] of this.issued) if (now - state.issuedAt >= 2 * this.lifetimeMs) this.issued.delete(iterator);
  }
}
