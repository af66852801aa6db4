import { KeyLimits, withSignal } from '../../dynamo';
import type { Key } from './plan-rows';
import { readRows, type ReadRow } from './read-rows';
import { rowIdOf, type RowStore } from './row-store';

interface Waiting {
  readonly keys: ReadonlyArray<Key>;
  readonly resolve: (rows: Array<ReadRow<unknown>>) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The row reads of calls that run side by side, gathered into shared BatchGetItem requests (`readRows`: 100
 * keys a request): a backfill applies many stream instances at once, each a call that reads its rows before
 * folding, and one GetItem each would be a third of its requests. The calls that ask before the event loop
 * turns (`setImmediate`) share a read, or as soon as a request's worth of keys waits. Each row is read, as
 * alone, strongly consistent before its fold; a row two calls ask for is read once for both (each folds its own copy). A failed read
 * fails every call that shared it (each then reads its rows itself).
 */
export class SharedRowReads {
  private waiting: Waiting[] = [];
  private keys = 0;
  private scheduled = false;

  /** Reads on `store` with `signal` on every request: the calls' common signal (a backfill's). */
  constructor(
    private readonly store: RowStore,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** The rows of `keys`, in their order, read with other calls' (see the class). */
  read<State>(keys: ReadonlyArray<Key>): Promise<Array<ReadRow<State>>> {
    return new Promise<Array<ReadRow<unknown>>>((resolve, reject) => {
      this.waiting.push({ keys, resolve, reject });
      this.keys += keys.length;
      if (this.keys >= KeyLimits.batchGetKeys) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    }) as Promise<Array<ReadRow<State>>>;
  }

  private flush(): void {
    this.scheduled = false;
    const waiting = this.waiting;
    if (waiting.length === 0) return;
    this.waiting = [];
    this.keys = 0;
    const unique = new Map<string, Key>();
    for (const { keys } of waiting) for (const key of keys) unique.set(rowIdOf({ store: this.store }, key), key);
    const store = { ...this.store, documents: withSignal(this.store.documents, this.signal) };
    readRows<unknown>(store, [...unique.values()], this.signal).then(
      (rows) => {
        const byId = new Map([...unique.keys()].map((id, index) => [id, rows[index] as ReadRow<unknown>]));
        const handedOut = new Set<string>();
        const rowOf = (key: Key) => {
          const id = rowIdOf({ store: this.store }, key);
          const row = byId.get(id) as ReadRow<unknown>;
          // A row two calls fold gets a copy each: a fold may change the state it starts from.
          if (handedOut.has(id)) return structuredClone(row);
          handedOut.add(id);
          return row;
        };
        for (const { keys, resolve } of waiting) resolve(keys.map(rowOf));
      },
      (error: unknown) => {
        for (const { reject } of waiting) reject(error);
      },
    );
  }
}
