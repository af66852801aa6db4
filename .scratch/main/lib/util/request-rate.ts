import { sleep } from './sleep';

/**
 * A token bucket of requests per second: `take(n)` waits until `n` requests fit the rate. Takers may run
 * the bucket into debt, and each then waits for its share of it, so concurrent takers queue up in the
 * order they came. A second's worth may go at once after an idle spell. `give` returns an overestimate.
 */
export class RequestRate {
  private tokens: number;
  private refilledAt = Date.now();

  constructor(private readonly perSecond: number) {
    this.tokens = perSecond;
  }

  async take(requests: number, signal?: AbortSignal): Promise<void> {
    this.refill();
    this.tokens -= requests;
    if (this.tokens < 0) await sleep((-this.tokens / this.perSecond) * 1000, signal);
  }

  give(requests: number): void {
    this.tokens = Math.min(this.perSecond, this.tokens + requests);
  }

  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
  }
}
