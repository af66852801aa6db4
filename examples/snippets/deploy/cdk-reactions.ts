import { App, Stack } from 'aws-cdk-lib';

export function checkoutStack(): Stack {
  const stack = new Stack(new App(), 'Checkout');
  // #region reactions
  const events = new EventsTable(stack, 'Events');
  // Progress rows and timers (the due-time index, TTL on ttl)
  const reactions = new ReactionsTable(stack, 'Reactions');
  const tables = {
    eventsTable: events.table,
    reactionsTable: reactions.table,
  };
  const env = {
    EVENTS_TABLE: events.tableName,
    REACTIONS_TABLE: reactions.tableName,
  };

  // lambdaHandler({ projections: [checkout] })
  const reactFn = new NodejsFunction(stack, 'React', {
    entry: 'src/react.ts',
    environment: env,
  });
  new ReactionFunction(stack, 'Checkout', {
    function: reactFn,
    ...tables,
    streams: ['Order', 'Payment'], // the workflow's inputs
    parallelizationFactor: 10,
  });

  // timerSweepHandler({ timers, owners: [checkout] })
  const sweepFn = new NodejsFunction(stack, 'Sweep', {
    entry: 'src/sweep.ts',
    environment: env,
  });
  new TimerSweep(stack, 'Timers', { function: sweepFn, ...tables });
  // #endregion reactions
  return stack;
}

export function schedulerStack(): Stack {
  const stack = new Stack(new App(), 'CheckoutScheduler');
  const events = new EventsTable(stack, 'Events');
  const reactions = new ReactionsTable(stack, 'Reactions');
  const tables = {
    eventsTable: events.table,
    reactionsTable: reactions.table,
  };
  const fn = (id: string, entry: string) =>
    new NodejsFunction(stack, id, { entry });
  const reactFn = fn('React', 'src/react.ts');
  const sweepFn = fn('Sweep', 'src/sweep.ts');
  // #region scheduler
  // schedulerTimerHandler({ timers, owners: [checkout] })
  const wakeFn = fn('Wake', 'src/wake.ts');
  const schedules = new TimerSchedules(stack, 'Wakeups', {
    function: wakeFn,
    ...tables,
  });
  new ReactionFunction(stack, 'Checkout', {
    function: reactFn,
    ...tables,
    streams: ['Order', 'Payment'],
    schedules, // it creates and deletes the timers' schedules
  });
  new TimerSweep(stack, 'Timers', {
    function: sweepFn,
    ...tables,
    schedules,
    every: Duration.minutes(5), // the wake-ups fire on time
  });
  // SchedulerTimers' target and group, in the functions' environment
  for (const f of [reactFn, sweepFn]) {
    f.addEnvironment('TIMER_FUNCTION_ARN', schedules.targetArn);
    f.addEnvironment('SCHEDULER_ROLE_ARN', schedules.roleArn);
    f.addEnvironment('SCHEDULE_GROUP', schedules.groupName);
  }
  // #endregion scheduler
  return stack;
}

// #region imports
import { Duration } from 'aws-cdk-lib';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import {
  EventsTable,
  ReactionFunction,
  ReactionsTable,
  TimerSchedules,
  TimerSweep,
} from 'dynafold/cdk';
// #endregion imports
