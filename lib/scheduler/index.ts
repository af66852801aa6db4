/**
 * `dynafold/scheduler`: durable timers woken by EventBridge Scheduler, a one-time schedule per timer that
 * invokes `schedulerTimerHandler` at its time; the timers themselves, their firing and its once-only
 * record are `DynamoTimers`' (`dynafold/reactions`). Loads `@aws-sdk/client-scheduler`, an optional peer
 * that nothing else of the package loads. This file is the subpath's public API.
 */
export { SchedulerTimers, SchedulerTimersDefaults, scheduleName } from './scheduler-timers';
export type { SchedulerTimersOptions, TimerWakeUp } from './scheduler-timers';
export { schedulerTimerHandler } from './scheduler-handler';
export type { SchedulerTimerHandlerOptions } from './scheduler-handler';
