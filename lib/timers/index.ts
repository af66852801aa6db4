// Durable timers on DynamoDB: a timer is an item (timer-layout) written in the transaction of the effects
// that schedule it; a sweep (sweep) lists the due ones through a sparse index of due times (dynamo-timers)
// and fires each in one transaction with its owner's effects (fire-timer), by the clock (clock). Owners are
// reactions and workflows, which plan a firing's effects (the `TimerOwner` port); an adapter that wakes each
// timer at its time instead (dynafold/scheduler) builds on `DynamoTimers`. Public through dynafold/reactions.
export { systemClock } from './clock';
export type { Clock } from './clock';
export { TimerDefaults } from './defaults';
export { DynamoTimers } from './dynamo-timers';
export type { DynamoTimersOptions } from './dynamo-timers';
export { fireTimer } from './fire-timer';
export type { FiringOutcome, FiringPlan, TimerOwner } from './fire-timer';
export { runTimerSweeps, sweepTimers, timerSweepHandler } from './sweep';
export type { SweepOptions, SweepResult, TimerSweepsOptions } from './sweep';
export { TimerLayout, cancelPut, dueTimerOf, schedulePut, timerItemKey, withDueIndex } from './timer-layout';
export type { DueTimer, ScheduledTimer, TimerKey, TimerState } from './timer-layout';
