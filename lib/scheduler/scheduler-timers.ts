import { createHash } from 'node:crypto';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { ConfigurationError } from '../errors';
import { DynamoTimers, type DynamoTimersOptions, type ScheduledTimer, type TimerKey } from '../timers';
import { Semaphore, requireText } from '../util';

/** Options of {@link SchedulerTimers}: the timers' table, as `DynamoTimers` takes it, and where EventBridge Scheduler wakes them. */
export interface SchedulerTimersOptions extends DynamoTimersOptions {
  /** The EventBridge Scheduler client (injected: made, configured and destroyed by the app). */
  readonly scheduler: SchedulerClient;
  /** What each one-time schedule invokes: the Lambda function running `schedulerTimerHandler`, and the role EventBridge Scheduler assumes to invoke it. */
  readonly target: { readonly arn: string; readonly roleArn: string };
  /** The schedule group, made beforehand (the CDK construct makes one). @defaultValue 'default' */
  readonly group?: string | undefined;
}

/** Defaults of {@link SchedulerTimers}, in one place. */
export const SchedulerTimersDefaults = {
  group: 'default',
  /** Schedules created or deleted at once, after a write that scheduled or cancelled many timers. */
  concurrency: 8,
  /** A schedule is never set sooner than this from now: one due already is invoked within it. */
  leadMs: 1000,
} as const;

/** What a schedule hands the Lambda function: the timer's key, which its handler reads the timer by. */
export interface TimerWakeUp {
  readonly dynafoldTimer: TimerKey;
}

/**
 * Durable timers woken by EventBridge Scheduler: the timers are `DynamoTimers`' items, written with the
 * effects that schedule them and fired by the same conditional transaction; once a write that scheduled
 * a timer landed, a one-time schedule (`at(...)`, deleted after it ran) invokes `schedulerTimerHandler` at
 * the timer's time, so it fires then instead of at the next sweep. The schedule's name is derived from the
 * timer's key: creating it again (a retry, a timer scheduled again) updates it, so the name is the
 * idempotency key, and a cancelled or fired timer's schedule is deleted by it. A wake-up is never needed
 * for correctness: a process that stopped between the write and the schedule leaves the timer to the
 * sweep, so keep a sweep (`timerSweepHandler`) running every few minutes beside it.
 *
 * @example
 * ```ts
 * const timers = new SchedulerTimers({
 *   client, table: 'reactions', scheduler: new SchedulerClient({}),
 *   target: { arn: process.env.TIMER_FUNCTION_ARN!, roleArn: process.env.SCHEDULER_ROLE_ARN! },
 *   group: 'dynafold-timers',
 * })
 * ```
 */
export class SchedulerTimers extends DynamoTimers {
  readonly group: string;
  private readonly scheduler: SchedulerClient;
  private readonly target: { readonly arn: string; readonly roleArn: string };

  constructor(options: SchedulerTimersOptions) {
    super(options);
    const where = 'SchedulerTimers';
    if (typeof options.scheduler?.send !== 'function') throw new ConfigurationError(`${where}: expected \`scheduler\` to be a SchedulerClient.`);
    if (typeof options.target !== 'object' || options.target === null)
      throw new ConfigurationError(`${where}: expected \`target\` with \`arn\` and \`roleArn\`.`);
    requireText('target.arn', options.target.arn, where);
    requireText('target.roleArn', options.target.roleArn, where);
    this.group = requireText('group', options.group ?? SchedulerTimersDefaults.group, where);
    this.scheduler = options.scheduler;
    this.target = options.target;
  }

  /** Creates (or updates) the one-time schedule of each timer, at its time; one due already, at once. */
  override async scheduled(timers: ReadonlyArray<ScheduledTimer>, signal?: AbortSignal): Promise<void> {
    const limit = new Semaphore(SchedulerTimersDefaults.concurrency);
    await Promise.all(timers.map((timer) => limit.use(() => this.schedule(timer, signal), signal)));
  }

  /** Deletes the schedule of each timer cancelled or fired (none there: nothing to do). */
  override async dropped(timers: ReadonlyArray<TimerKey>, signal?: AbortSignal): Promise<void> {
    const limit = new Semaphore(SchedulerTimersDefaults.concurrency);
    await Promise.all(
      timers.map((timer) =>
        limit.use(async () => {
          try {
            await this.scheduler.send(new DeleteScheduleCommand({ Name: scheduleName(timer), GroupName: this.group }), sendOptions(signal));
          } catch (error) {
            if (!(error instanceof ResourceNotFoundException)) throw error;
          }
        }, signal),
      ),
    );
  }

  private async schedule(timer: ScheduledTimer, signal: AbortSignal | undefined): Promise<void> {
    const wakeUp: TimerWakeUp = { dynafoldTimer: { owner: timer.owner, scope: timer.scope, name: timer.name } };
    const input: CreateScheduleCommandInput = {
      Name: scheduleName(timer),
      GroupName: this.group,
      ScheduleExpression: atExpression(Math.max(timer.at, this.clock.now() + SchedulerTimersDefaults.leadMs)),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: this.target.arn, RoleArn: this.target.roleArn, Input: JSON.stringify(wakeUp) },
    };
    try {
      await this.scheduler.send(new CreateScheduleCommand(input), sendOptions(signal));
    } catch (error) {
      // The name is taken: this timer's schedule, from an earlier try or an earlier time. Set it to this one.
      if (!(error instanceof ConflictException)) throw error;
      await this.scheduler.send(new UpdateScheduleCommand(input), sendOptions(signal));
    }
  }
}

/** A request's options: the signal, when there is one (its absence, not `undefined`, under exactOptionalPropertyTypes). */
function sendOptions(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal === undefined ? {} : { abortSignal: signal };
}

/**
 * A timer's schedule name: `df-` and 56 hex digits of a SHA-256 of its key (EventBridge Scheduler allows
 * 64 of `[0-9a-zA-Z-_.]`). The same timer always gets the same name, which makes creating its schedule
 * idempotent, and lets an operator find a timer's schedule.
 *
 * @example
 * ```ts
 * const name = scheduleName({ owner: 'Checkout', scope: 'o-1', name: 'payment-due' })
 * ```
 */
export function scheduleName(key: TimerKey): string {
  return `df-${createHash('sha256')
    .update(JSON.stringify([key.owner, key.scope, key.name]))
    .digest('hex')
    .slice(0, 56)}`;
}

/** An `at(...)` expression in UTC for `ms`, rounded up to the second: a schedule never runs before its timer is due. */
export function atExpression(ms: number): string {
  return `at(${new Date(Math.ceil(ms / 1000) * 1000).toISOString().slice(0, 19)})`;
}
