/**
 * The simulation's clock: wall time plus an offset that tests move forward, so that "a consumer down for
 * longer than the retention" or "an iterator older than its lifetime" takes no real time.
 */
export class SimClock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
