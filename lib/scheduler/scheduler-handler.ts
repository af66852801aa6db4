import { ConfigurationError } from '../errors';
import { dueTimerOf, fireTimer, type FiringOutcome, type TimerOwner } from '../timers';
import { log, resolveLogger, type Logger } from '../util';
import type { SchedulerTimers, TimerWakeUp } from './scheduler-timers';

/** Options of {@link schedulerTimerHandler}. */
export interface SchedulerTimerHandlerOptions {
  readonly timers: SchedulerTimers;
  /** The reactions and workflows whose timers the schedules wake, by their names. */
  readonly owners: ReadonlyArray<TimerOwner>;
  /** Receives wake-ups of unknown owners (warn). @defaultValue one JSON line per entry on the console */
  readonly logger?: Logger | false | undefined;
}

/**
 * The handler of the Lambda function a timer's schedule invokes (see `SchedulerTimers`): reads the timer
 * the schedule names and fires it, as a sweep would (once, in one transaction with its owner's effects).
 * A timer fired, cancelled or scheduled again since is left alone; one not due yet by the clock (clocks
 * differ by a moment) is woken again at its time. A failure rejects, so EventBridge Scheduler tries again
 * (its retry policy); the timer stays due for the sweep meanwhile.
 *
 * @example
 * ```ts
 * export const handler = schedulerTimerHandler({ timers, owners: [checkout] })
 * ```
 */
export function schedulerTimerHandler(options: SchedulerTimerHandlerOptions): (event: unknown) => Promise<FiringOutcome> {
  const { timers } = options;
  const owners = new Map(options.owners.map((owner) => [owner.name, owner]));
  const logger = resolveLogger(options.logger);
  return async (event) => {
    const key = (event as Partial<TimerWakeUp> | undefined)?.dynafoldTimer;
    if (typeof key?.owner !== 'string' || typeof key.scope !== 'string' || typeof key.name !== 'string') {
      throw new ConfigurationError('schedulerTimerHandler: expected the event a timer schedule sends, { dynafoldTimer: { owner, scope, name } }.');
    }
    const item = await timers.item(key);
    const timer = item === undefined ? undefined : dueTimerOf(item);
    if (timer === undefined) return 'gone';
    const owner = owners.get(timer.owner);
    if (owner === undefined) {
      log(logger, 'warn', { owner: timer.owner, timer: timer.name }, 'A timer woke whose owner this function does not know; the sweep fires it.');
      return 'gone';
    }
    const outcome = await fireTimer(timers, owner, timer);
    // Its schedule ran and was deleted: wake it again at its time.
    if (outcome === 'early') await timers.scheduled([timer]);
    return outcome;
  };
}
