// The reactions guide's timers: swept on DynamoDB, or woken by
// EventBridge Scheduler.
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { client } from '../store/model';
import { checkoutStreams, checkoutWorkflow } from './checkout';

const tables = { events: 'events', reactions: 'reactions' };
const { workflow: checkout, timers } = checkoutWorkflow(
  client,
  tables,
  checkoutStreams(client, tables.events),
);

export function sweeps(feed: () => Promise<void>) {
  // #region sweep
  // A Lambda function on an EventBridge rule, every minute (TimerSweep)
  const handler = timerSweepHandler({ timers, owners: [checkout] });

  // Or beside the change feed, in its process: every second
  const stop = new AbortController();
  const running = Promise.all([
    feed(),
    runTimerSweeps({ timers, owners: [checkout], signal: stop.signal }),
  ]);
  // #endregion sweep
  return { handler, running, stop };
}

export function scheduler() {
  // #region scheduler
  const wakeUps = new SchedulerTimers({
    client,
    table: tables.reactions,
    scheduler: new SchedulerClient({}),
    // TimerSchedules' targetArn, roleArn and groupName
    target: {
      arn: process.env['TIMER_FUNCTION_ARN']!,
      roleArn: process.env['SCHEDULER_ROLE_ARN']!,
    },
    group: process.env['SCHEDULE_GROUP']!,
  });
  // The function each timer's schedule invokes at its time
  const { workflow } = checkoutWorkflow(
    client,
    tables,
    checkoutStreams(client, tables.events),
    { timers: wakeUps },
  );
  const wake = schedulerTimerHandler({
    timers: wakeUps,
    owners: [workflow],
  });
  // #endregion scheduler
  return wake;
}

// #region imports
import { runTimerSweeps, timerSweepHandler } from 'dynafold/reactions';
import {
  SchedulerTimers,
  schedulerTimerHandler,
} from 'dynafold/scheduler';
// #endregion imports
