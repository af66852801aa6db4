/**
 * What time it is, as timers see it: a sweep fires the timers due by `now()`, and never one before. The
 * system clock in production; the test kit's `TestClock`, which a test moves, in specs.
 */
export interface Clock {
  /** The time now, in epoch milliseconds. */
  now(): number;
}

/** The system's clock (`Date.now`). */
export const systemClock: Clock = { now: () => Date.now() };
