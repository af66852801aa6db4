/**
 * The queue that merges every shard reader's batches into the feed's one AsyncIterable: readers push,
 * the consumer takes. `fail` makes the next take reject; `close` makes it report the end, dropping what
 * was not taken (those batches were never acknowledged, so they are read again on restart).
 */
export class Channel<T> {
  private readonly items: T[] = [];
  private waiter: { resolve: (result: IteratorResult<T, undefined>) => void; reject: (error: unknown) => void } | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;

  push(item: T): void {
    if (this.closed || this.failure !== undefined) return;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter !== undefined) waiter.resolve({ value: item, done: false });
    else this.items.push(item);
  }

  /** Ends the channel with an error; the first one wins. */
  fail(error: unknown): void {
    if (this.closed || this.failure !== undefined) return;
    this.failure = { error };
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(error);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve({ value: undefined, done: true });
  }

  get isOpen(): boolean {
    return !this.closed && this.failure === undefined;
  }

  take(): Promise<IteratorResult<T, undefined>> {
    if (this.failure !== undefined) return Promise.reject(this.failure.error);
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }
}
