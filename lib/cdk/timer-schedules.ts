import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { grantActions } from './grants';
import { Actions } from './permissions';
import { grantTimerFiring, type ReactionTables } from './reaction-grants';

/** Settings of {@link TimerSchedules}. */
export interface TimerSchedulesProps extends ReactionTables {
  /** The function running `schedulerTimerHandler`, which each timer's schedule invokes. */
  readonly function: lambda.IFunction;
  /** The schedule group's name; CloudFormation generates one when absent. */
  readonly groupName?: string | undefined;
}

/**
 * What `SchedulerTimers` (`dynafold/scheduler`) needs: a schedule group for the timers' one-time schedules,
 * the role EventBridge Scheduler assumes to invoke the function, and that function (`schedulerTimerHandler`)
 * with the actions of a firing and of its schedules. `grantScheduling` gives a function that schedules or
 * cancels timers (a `ReactionFunction`, a `TimerSweep`: pass them `schedules`) the schedule actions in the
 * group and `iam:PassRole` on the role. Give the app `targetArn`, `roleArn` and `groupName` (its
 * `SchedulerTimers`' `target` and `group`), in its functions' environment.
 *
 * @example
 * ```ts
 * const schedules = new TimerSchedules(stack, 'Wakeups', { function: timerFn, eventsTable: events.table, reactionsTable: reactions.table })
 * new ReactionFunction(stack, 'Checkout', { ...props, schedules })
 * ```
 */
export class TimerSchedules extends Construct {
  readonly group: scheduler.CfnScheduleGroup;
  /** The role EventBridge Scheduler assumes to invoke the function. */
  readonly role: iam.Role;
  readonly groupName: string;
  readonly roleArn: string;
  /** The function the schedules invoke: `SchedulerTimers`' `target.arn`. */
  readonly targetArn: string;

  constructor(scope: Construct, id: string, props: TimerSchedulesProps) {
    super(scope, id);
    this.group = new scheduler.CfnScheduleGroup(this, 'Group', props.groupName === undefined ? {} : { name: props.groupName });
    this.groupName = this.group.ref;
    const account = Stack.of(this).account;
    this.role = new iam.Role(this, 'Invoke', {
      description: 'Assumed by EventBridge Scheduler to invoke the function that fires a timer (schedulerTimerHandler).',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': account } } }),
    });
    props.function.grantInvoke(this.role);
    this.roleArn = this.role.roleArn;
    this.targetArn = props.function.functionArn;
    grantTimerFiring(props.function, props);
    // A timer woken a moment early is scheduled again; a fired one's schedule is deleted.
    this.grantScheduling(props.function);
  }

  /** Grants what scheduling and cancelling timers sends: the schedule actions in the group, and passing the role. */
  grantScheduling(grantee: iam.IGrantable): void {
    const schedules = Stack.of(this).formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${this.groupName}/*` });
    grantActions(grantee, Actions.schedulesInGroup, [schedules]);
    grantActions(grantee, ['iam:PassRole'], [this.roleArn]);
  }
}
