/**
 * `dynafold/reactions`: events that cause effects on other streams, exactly once. A `Reaction` answers each
 * event of its streams with effects (`command`, `append`, `message`, `schedule`, `cancel`), written in one
 * transaction with its progress per source instance, a row of the reactions table
 * (`reactionsTableDefinition`); it is delivered as projections are. Durable timers (`DynamoTimers`) fire
 * once, never early, by a sweep (`sweepTimers`, `runTimerSweeps`, `timerSweepHandler`). A `Workflow` is a
 * reaction whose instances are streams of their own, recording each input and the outputs `decide`
 * answered. The EventBridge Scheduler adapter is in `dynafold/scheduler`. This file is the subpath's public API.
 */
export { Reaction } from './reaction';
export type { ReactionBatchResult } from './reaction';
export type { ReactionOptions, Reacted, FiredTimer } from './reaction-options';
export { command, append, message, schedule, cancel } from './effects';
export type {
  Effect,
  CommandEffect,
  CommandEffectOptions,
  AppendEffect,
  MessageEffect,
  ScheduleEffect,
  CancelEffect,
  StreamIdOfStream,
  NewEventOfStream,
} from './effects';
export { reactionsTableDefinition } from './progress';
export { Workflow, complete } from './workflows';
export type {
  LoadedInstance,
  CompleteOutput,
  DecideContext,
  WorkflowDecision,
  WorkflowOptions,
  WorkflowSnapshots,
  WorkflowInput,
  WorkflowMessage,
  WorkflowOutput,
} from './workflows';
export { DynamoTimers, TimerDefaults, systemClock, sweepTimers, runTimerSweeps, timerSweepHandler } from '../timers';
export type {
  Clock,
  DynamoTimersOptions,
  SweepOptions,
  SweepResult,
  TimerSweepsOptions,
  TimerOwner,
  DueTimer,
  FiringPlan,
  FiringOutcome,
  ScheduledTimer,
  TimerKey,
} from '../timers';
