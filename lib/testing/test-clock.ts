import { ConfigurationError } from '../errors';
import type { Clock } from '../timers';

/**
 * A clock the test moves: timers (`DynamoTimers`' `clock`) fire when it says they are due, and never
 * before. It starts at the time it was made (or `start`) and stands still until moved.
 *
 * @example
 * ```ts
 * const clock = new TestClock()
 * const timers = new DynamoTimers({ client, table, clock })
 * clock.advance(31 * 60_000)
 * await sweepTimers({ timers, owners: [checkout] })
 * ```
 */
export class TestClock implements Clock {
  private time: number;

  constructor(start: Date | number = Date.now()) {
    this.time = TestClock.ms(start, 'start');
  }

  /** The clock's time, in epoch ms. */
  now(): number {
    return this.time;
  }

  /** Moves the clock forward by `ms` (a clock never goes back). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0)
      throw new ConfigurationError(`TestClock: expected \`ms\` to be a number of milliseconds of at least 0, got ${ms}.`);
    this.time += ms;
  }

  /** Sets the clock to `time`, not before its time now. */
  set(time: Date | number): void {
    const ms = TestClock.ms(time, 'time');
    if (ms < this.time) throw new ConfigurationError(`TestClock: a clock never goes back (from ${new Date(this.time).toISOString()}).`);
    this.time = ms;
  }

  private static ms(time: Date | number, option: string): number {
    const ms = time instanceof Date ? time.getTime() : time;
    if (typeof ms !== 'number' || !Number.isFinite(ms)) throw new ConfigurationError(`TestClock: expected \`${option}\` to be a Date or epoch ms.`);
    return ms;
  }
}
