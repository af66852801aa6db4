import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { grantTimerFiring, type ReactionTables } from './reaction-grants';
import type { TimerSchedules } from './timer-schedules';

/** Defaults of {@link TimerSweep}, in one place. */
export const TimerSweepDefaults = {
  /** How often the sweep runs: a timer fires on the first sweep after it is due, so at most this late. */
  every: Duration.minutes(1),
} as const;

/** Settings of a {@link TimerSweep}. */
export interface TimerSweepProps extends ReactionTables {
  /** The function running `timerSweepHandler` with the reactions and workflows whose timers it fires. */
  readonly function: lambda.IFunction;
  /** How often it sweeps. @defaultValue one minute ({@link TimerSweepDefaults}) */
  readonly every?: Duration | undefined;
  /** The EventBridge Scheduler resources, when the timers are `SchedulerTimers`: a firing deletes its timer's schedule. */
  readonly schedules?: TimerSchedules | undefined;
}

/**
 * The sweep of durable timers on Lambda: an EventBridge rule invokes the function every minute (`every`),
 * and it fires the timers due by then (`timerSweepHandler`), with exactly the actions a firing sends: the
 * due-time index's Query, the timer's record, and its owner's effects (a workflow's instance, commands,
 * appends, messages). Keep it beside `TimerSchedules` too: a timer whose schedule was never made (a process
 * that stopped in between) fires by the sweep.
 *
 * @example
 * ```ts
 * new TimerSweep(stack, 'Timers', { function: sweepFn, eventsTable: events.table, reactionsTable: reactions.table })
 * ```
 */
export class TimerSweep extends Construct {
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: TimerSweepProps) {
    super(scope, id);
    this.rule = new events.Rule(this, 'Every', {
      description: 'Fires the durable timers that are due (timerSweepHandler).',
      schedule: events.Schedule.rate(props.every ?? TimerSweepDefaults.every),
      targets: [new targets.LambdaFunction(props.function)],
    });
    grantTimerFiring(props.function, props);
    props.schedules?.grantScheduling(props.function);
  }
}
