import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../../errors';
import type { PoisonPolicy } from '../../projector';
import type { AnyEventStream, EventsOfStream } from '../../store';
import type { DynamoTimers } from '../../timers';
import { requireFunction, requireTableName, type Logger, type RetryOptions } from '../../util';
import type { Effect } from '../effects';
import type { WorkflowInput, WorkflowMessage } from './workflow-events';

/** The output that completes a workflow instance: its later inputs are recorded as ignored. */
export interface CompleteOutput {
  readonly kind: 'complete';
}

/**
 * Completes the workflow instance once this input's outputs are written: its later inputs (a late
 * event, a timer not cancelled) are recorded as ignored, and `decide` no longer sees them.
 *
 * @example
 * ```ts
 * decide: (input, state, { id }) =>
 *   input.type === 'timer' ? [command(Orders, { orderId: id }, cancelOrder), complete()] : []
 * ```
 */
export function complete(): CompleteOutput {
  return { kind: 'complete' };
}

/** What a workflow's `decide` answers: effects (commands, appends, messages, timers), `complete()`, or nothing. */
export type WorkflowDecision = Effect | CompleteOutput | ReadonlyArray<Effect | CompleteOutput> | undefined | void;

/** What `decide` is told besides the input and the state. */
export interface DecideContext {
  /** The instance's id (what `correlate` answered). */
  readonly id: string;
  /** The version of the instance's stream before this input. */
  readonly version: number;
}

/** How a workflow instance's state loads: from its latest snapshot, saved every `every` events folded past it. */
export interface WorkflowSnapshots {
  /** @defaultValue never */
  readonly every?: number | undefined;
  /** Bump it when the state's shape changes: older snapshots are then ignored. @defaultValue 1 */
  readonly version?: number | undefined;
}

/** Options of {@link Workflow}. */
export interface WorkflowOptions<S extends AnyEventStream, State> {
  /** Names the workflow: the stream of its instances and its progress, timers and messages are stored under it. No `#`. */
  readonly name: string;
  /** The streams whose events are its inputs. */
  readonly inputs: ReadonlyArray<S>;
  /**
   * The instance an event is an input of (its id), or `undefined` for none: the event is passed over. Must
   * be deterministic: it routes the event again on every delivery.
   */
  readonly correlate: (event: EventsOfStream<S>) => string | undefined;
  readonly client: DynamoDBClient;
  /** The reactions table: its progress per input instance (see `reactionsTableDefinition`). */
  readonly table: string;
  /** The events table its instances' streams live in (an app's events table will do: the stream is named after the workflow). */
  readonly eventsTable: string;
  /** An instance's state before its first input. */
  readonly initial: State | (() => State);
  /** Folds an input or an output, as the instance's stream recorded it, into the state. */
  readonly evolve: (state: State, message: WorkflowMessage<EventsOfStream<S>>) => State;
  /**
   * The outputs of an input, given the state before it: commands, appends, messages, timers to schedule
   * or cancel (named per instance), `complete()`. Recorded with the input in the instance's stream and
   * written with their effects in one transaction, once. It runs again after a lost race, so it must do
   * nothing itself. A throw fails the input's source event, which counts towards parking (`poison`).
   */
  readonly decide: (input: WorkflowInput<EventsOfStream<S>>, state: State, context: DecideContext) => WorkflowDecision | Promise<WorkflowDecision>;
  /** The timers its `schedule` and `cancel` outputs use; a sweep fires them as inputs. */
  readonly timers?: DynamoTimers | undefined;
  /** Load instances from snapshots (see `load`'s `snapshot`). @defaultValue none: every load folds the instance's stream */
  readonly snapshot?: WorkflowSnapshots | undefined;
  /** Take only events appended at or after this time as inputs (see `ReactionOptions.since`). */
  readonly since?: Date | number | undefined;
  /** What to do with an input instance whose event keeps failing (see `ReactionOptions.poison`). @defaultValue 'retry' */
  readonly poison?: PoisonPolicy | undefined;
  readonly logger?: Logger | undefined;
  /** Input instances handled at once by a call. @defaultValue 10 */
  readonly concurrency?: number | undefined;
  /** Tries against concurrent writers (an instance's stream moved, say). @defaultValue as a projection's */
  readonly retry?: RetryOptions | undefined;
}

/** Checks what the reaction under the workflow does not: `ConfigurationError` naming the first option that can't be honoured. */
export function validateWorkflow<S extends AnyEventStream, State>(options: WorkflowOptions<S, State>): void {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError('Expected the options of a Workflow.');
  const where = `Workflow ${String(options.name)}`;
  requireFunction('correlate', options.correlate, where);
  requireFunction('evolve', options.evolve, where);
  requireFunction('decide', options.decide, where);
  requireTableName('eventsTable', options.eventsTable, where);
  if (!Array.isArray(options.inputs)) throw new ConfigurationError(`${where}: expected \`inputs\` to list the EventStreams whose events it takes.`);
  for (const input of options.inputs) {
    // Its stream records its inputs' data, which would copy personal data out of its subjects' reach.
    if ((input as { readonly subjectKeys?: unknown } | undefined)?.subjectKeys !== undefined) {
      throw new ConfigurationError(
        `${where}: input ${input.name} declares personal data, which the workflow's stream would record in the clear. ` +
          'React to it with a Reaction, or route an event without personal data to the workflow.',
      );
    }
  }
}
