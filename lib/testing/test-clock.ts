import { ConfigurationError } from '../errors';
import type { Clock } from '../timers';

/**
 * A clock the test moves: timers (`DynamoTimers`' `clock`) fire when it says they are due, and never
 * before. It runs with the system's time, which stamps the events a test appends, plus the time the test
 * moved it by: a timer scheduled 30 minutes after an event falls due once the test advanced 30 minutes.
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
  private offset = 0;

  /** The system's time plus what the clock was moved by, in epoch ms. */
  now(): number {
    return Date.now() + this.offset;
  }

  /** Moves the clock forward by `ms` (a clock never goes back). */
  advance(ms: number): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw new ConfigurationError(`TestClock: expected \`ms\` to be a number of milliseconds of at least 0, got ${String(ms)}.`);
    }
    this.offset += ms;
  }

  /** How far the clock was moved, in ms. */
  get advanced(): number {
    return this.offset;
  }
}
