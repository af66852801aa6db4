import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { eventFilterPattern } from '../store';
import { requireStreamNames } from './projector';
import { grantReaction, type ReactionTables } from './reaction-grants';
import { StreamMapping, type StreamMappingProps } from './stream-mapping';
import type { TimerSchedules } from './timer-schedules';

/** What a reaction function reacts to, and where. */
export interface ReactionFunctionProps extends StreamMappingProps, ReactionTables {
  /** The function running `lambdaHandler` with its reactions and workflows among the projections. */
  readonly function: lambda.IFunction;
  /** The names of the event streams its reactions and workflows take events from: only their event INSERTs invoke it. */
  readonly streams: ReadonlyArray<string>;
  /** The EventBridge Scheduler resources, when its timers are `SchedulerTimers`: the function creates and deletes their schedules. */
  readonly schedules?: TimerSchedules | undefined;
}

/**
 * Reactions and workflows on Lambda: the function subscribed to the events table's stream as a projector
 * is (ReportBatchItemFailures, the filter of `eventFilterPattern` over its source streams, bisect on error,
 * bounded retries, an OnFailure queue, an alarm on iterator age), with exactly the DynamoDB actions its
 * reactions send: gap reads, their targets' loads and appends, progress rows and timers, outbox messages.
 * Their timers fire by a `TimerSweep` (and, with `SchedulerTimers`, by `TimerSchedules`' function too).
 *
 * @example
 * ```ts
 * const reactions = new ReactionsTable(stack, 'Reactions')
 * new ReactionFunction(stack, 'Checkout', { function: fn, eventsTable: events.table, reactionsTable: reactions.table, streams: ['Order', 'Payment'] })
 * ```
 */
export class ReactionFunction extends Construct {
  readonly mapping: StreamMapping;

  constructor(scope: Construct, id: string, props: ReactionFunctionProps) {
    super(scope, id);
    const { function: fn, eventsTable, reactionsTable, targetTables, outboxTables, streams, schedules, ...mapping } = props;
    requireStreamNames(id, streams, 'its reactions and workflows take events from');
    this.mapping = new StreamMapping(this, 'Stream', { function: fn, table: eventsTable, filter: eventFilterPattern(streams) }, mapping);
    grantReaction(fn, { eventsTable, reactionsTable, targetTables, outboxTables });
    schedules?.grantScheduling(fn);
  }
}
