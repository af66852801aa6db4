import { ConfigurationError } from '../../errors';
import type { Decider, EventStream, NewEventOf, StreamEvent } from '../../store';
import type { Effect } from '../effects';
import type { Cause, EffectOutcome, PlanningEffect, TransactionPlan } from '../transaction-plan';
import { inputOf, outputOf, type RecordedInput, type WorkflowInput, type WorkflowMessage, type workflowEvents } from './workflow-events';
import type { CompleteOutput, DecideContext, WorkflowDecision, WorkflowSnapshots } from './workflow-options';

const VERSION_DIGITS = 12;

/** A workflow instance's state as its stream folds: the app's state, and whether the instance completed. */
export interface InstanceState<State> {
  readonly state: State;
  readonly completed: boolean;
}

/** What a workflow's steps run on. */
export interface WorkflowRuntime<State> {
  readonly name: string;
  /** The stream of its instances. */
  readonly stream: EventStream;
  readonly fold: Pick<Decider<InstanceState<State>, StreamEvent, unknown>, 'initial' | 'evolve'>;
  readonly decide: (input: WorkflowInput, state: State, context: DecideContext) => WorkflowDecision | Promise<WorkflowDecision>;
  readonly snapshot: WorkflowSnapshots | undefined;
}

/** The fold of an instance's stream: each recorded input and output through the app's `evolve`, completion kept apart. */
export function instanceFold<State>(
  initial: State | (() => State),
  evolve: (state: State, message: WorkflowMessage) => State,
): WorkflowRuntime<State>['fold'] {
  return {
    initial: () => ({ state: typeof initial === 'function' ? (initial as () => State)() : initial, completed: false }),
    evolve: (instance, event) => {
      if (event.type === 'InputIgnored') return instance;
      if (event.type === 'InputReceived')
        return { ...instance, state: evolve(instance.state, inputOf((event.data as { input: RecordedInput }).input)) };
      const output = outputOf(event);
      if (output === undefined) return instance;
      return { state: evolve(instance.state, output), completed: instance.completed || output.type === 'complete' };
    },
  };
}

/**
 * One input of a workflow instance, as an effect of what brought it (a source event, a timer firing):
 * the instance's state is loaded (from a snapshot, with `snapshot`) and the appends this transaction
 * already plans on it folded on; `decide` answers the outputs, planned as effects of their own (timers
 * named in the instance, messages in its partition, in the order of its stream), and the instance's
 * stream records the input and what each output did, in the same transaction. A completed instance
 * records the input as ignored, and decides nothing.
 */
export function workflowStep<State>(workflow: WorkflowRuntime<State>, id: string, input: RecordedInput): PlanningEffect {
  return {
    kind: 'planning',
    plan: async (plan: TransactionPlan, cause: Cause) => {
      const snapshot = workflow.snapshot === undefined ? undefined : { ...workflow.snapshot, name: 'workflow' };
      await plan.decideOn(
        workflow.stream,
        id,
        workflow.fold,
        { consistent: true, ...(snapshot === undefined ? {} : { snapshot }) },
        async (instance, version) => {
          if (instance.completed) return [{ type: 'InputIgnored', data: { input } } satisfies NewEventOf<typeof workflowEvents>];
          const decided = outputsOf(await workflow.decide(inputOf(input), instance.state, { id, version }), workflow);
          const effects = decided.filter((output): output is Effect => output.kind !== 'complete');
          const scoped: Cause = {
            ...cause,
            scope: id,
            messages: { partition: JSON.stringify([workflow.name, id]), order: String(version + 1).padStart(VERSION_DIGITS, '0') },
          };
          const outcomes = await plan.add(effects, scoped);
          const completes = decided.some((output) => output.kind === 'complete');
          const recorded: Array<NewEventOf<typeof workflowEvents>> = [{ type: 'InputReceived', data: { input } }, ...outcomes.map(recordedOutput)];
          if (completes) recorded.push({ type: 'Completed', data: {} });
          return recorded;
        },
      );
    },
  };
}

/** What `decide` answered, as a list; anything but effects and `complete()` is a `ConfigurationError`. */
function outputsOf(decision: WorkflowDecision, workflow: Pick<WorkflowRuntime<unknown>, 'name' | 'stream'>): ReadonlyArray<Effect | CompleteOutput> {
  if (decision === undefined) return [];
  const outputs = (Array.isArray(decision) ? decision : [decision]) as ReadonlyArray<Effect | CompleteOutput>;
  for (const output of outputs) {
    const kind = (output as { kind?: unknown } | null)?.kind;
    if (!['command', 'append', 'message', 'schedule', 'cancel', 'complete'].includes(kind as string)) {
      throw new ConfigurationError(
        `Workflow ${workflow.name}: expected outputs made by command, append, message, schedule, cancel or complete, got ${JSON.stringify(output)}.`,
      );
    }
    if ((kind === 'command' || kind === 'append') && (output as { stream: unknown }).stream === workflow.stream) {
      throw new ConfigurationError(`Workflow ${workflow.name}: its outputs can't append to its own stream, which records them.`);
    }
  }
  return outputs;
}

/** The event an instance's stream records for what an output did. */
function recordedOutput(outcome: EffectOutcome): NewEventOf<typeof workflowEvents> {
  switch (outcome.kind) {
    case 'command':
      return { type: 'CommandSent', data: { stream: outcome.stream, streamId: outcome.streamId, events: [...outcome.events] } };
    case 'append':
      return { type: 'EventsAppended', data: { stream: outcome.stream, streamId: outcome.streamId, events: [...outcome.events] } };
    case 'message':
      return { type: 'MessageSent', data: { table: outcome.table, id: outcome.id } };
    case 'schedule':
      return {
        type: 'TimerScheduled',
        data: { timer: outcome.timer, at: outcome.at, ...(outcome.data === undefined ? {} : { data: outcome.data }) },
      };
    case 'cancel':
      return { type: 'TimerCancelled', data: { timer: outcome.timer } };
  }
}
