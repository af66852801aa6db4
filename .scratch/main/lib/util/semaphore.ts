/**
 * Bounds how many calls run at once. A permit covers one call only, so a bound below the number of
 * callers slows them down without starving any: waiters are served first come, first served.
 */
export class Semaphore {
  private available: number;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly permits: number) {
    this.available = permits;
  }

  /** Runs `fn` once a permit is free; rejects with the signal's reason if it aborts while waiting. */
  async use<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Calls waiting for a permit. */
  get waiting(): number {
    return this.waiters.length;
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.available > 0) {
      this.available--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const index = this.waiters.indexOf(grant);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      this.waiters.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    const next = this.waiters.shift();
    // The permit passes straight to the next waiter, so `available` never counts it.
    if (next !== undefined) next();
    else this.available++;
  }
}
