import { EventStream, type AnyEventStream, type StreamEvent } from '../../store';
import type { DueTimer, FiringPlan } from '../../timers';
import { Reaction, firingCause } from '../reaction';
import { TransactionPlan } from '../transaction-plan';
import { recordInput, workflowEvents, type WorkflowInput, type WorkflowMessage } from './workflow-events';
import { validateWorkflow, type WorkflowOptions } from './workflow-options';
import { instanceFold, workflowStep, type InstanceState, type WorkflowRuntime } from './workflow-step';

/** A workflow instance's state as loaded. */
export interface LoadedInstance<State> {
  readonly state: State;
  /** It completed: its later inputs are recorded as ignored. */
  readonly completed: boolean;
  /** Its stream's version: inputs and outputs recorded so far. */
  readonly version: number;
}

/**
 * A process manager: each instance is a stream of its own, named after the workflow, which records its
 * inputs once each (the events `correlate` routes to it, its timers' firings) and, with each, the outputs
 * `decide` answered on the state before it (commands, appends, messages, timers, completion); `evolve`
 * folds both into the state, which loads as any stream's does (from snapshots, with `snapshot`). An input
 * and its outputs' effects are written in ONE transaction with the progress of the input's source (or
 * the timer's firing), so each input is recorded once and its effects happen once, whatever the delivery.
 * Inputs of one instance are handled one at a time, in the order its stream records them; instances run in
 * parallel. A completed instance records its later inputs as ignored. A workflow is delivered as a reaction
 * is (it is one), and its timers fire by a sweep of its `timers` (`sweepTimers`, with the workflow among the
 * owners).
 *
 * @example
 * ```ts
 * const checkout = new Workflow({
 *   name: 'Checkout', inputs: [Orders, Payments], client, table: 'reactions', eventsTable: 'events', timers,
 *   correlate: (event) => event.streamName === 'Order' ? event.streamId : event.data.orderId,
 *   initial: { paid: false }, evolve: (state, message) => message.type === 'event' && message.event.type === 'PaymentReceived' ? { paid: true } : state,
 *   decide: (input, state) => input.type === 'timer' && !state.paid ? [command(Orders, input.timer.data.orderId, cancelOrder), complete()] : [],
 * })
 * ```
 */
export class Workflow<S extends AnyEventStream = AnyEventStream, State = unknown> extends Reaction<S> {
  /** The stream of its instances: `<name>`, keyed by `id`, in `eventsTable`. */
  readonly stream: EventStream<string, readonly ['id'], typeof workflowEvents>;
  /** What its steps run on. */
  private readonly steps: WorkflowRuntime<State>;

  constructor(options: WorkflowOptions<S, State>) {
    validateWorkflow(options);
    const stream = new EventStream({
      client: options.client,
      table: options.eventsTable,
      name: options.name,
      streamId: ['id'] as const,
      events: workflowEvents,
    });
    const runtime: WorkflowRuntime<State> = {
      name: options.name,
      stream: stream as unknown as EventStream,
      fold: instanceFold(options.initial, options.evolve as (state: State, message: WorkflowMessage) => State),
      decide: options.decide as WorkflowRuntime<State>['decide'],
      snapshot: options.snapshot,
    };
    const correlate = options.correlate as (event: StreamEvent) => string | undefined;
    super({
      name: options.name,
      streams: options.inputs,
      client: options.client,
      table: options.table,
      filter: (event) => correlate(event) !== undefined,
      react: (event) => {
        const id = correlate(event);
        if (id === undefined) return undefined;
        // A planning effect of the package's own, which the reaction's plan takes as any effect.
        return workflowStep(runtime, stream.formatStreamId({ id }), recordInput({ type: 'event', event: event })) as never;
      },
      timers: options.timers,
      since: options.since,
      poison: options.poison,
      logger: options.logger,
      concurrency: options.concurrency,
      retry: options.retry,
    });
    this.stream = stream;
    this.steps = runtime;
  }

  /** An instance's state, strongly consistent (from its latest snapshot, with `snapshot`). */
  async load(id: string, options: { readonly signal?: AbortSignal | undefined } = {}): Promise<LoadedInstance<State>> {
    const { snapshot } = this.steps;
    const loaded = await this.stream.load<InstanceState<State>>(id, this.steps.fold, {
      signal: options.signal,
      ...(snapshot === undefined ? {} : { snapshot: { ...snapshot, name: 'workflow' } }),
    });
    return { state: loaded.state.state, completed: loaded.state.completed, version: loaded.version };
  }

  /** Plans a timer's firing, an input of the instance that scheduled it (see `TimerOwner`): the sweep calls it, an app need not. */
  override async planFiring(timer: DueTimer, signal: AbortSignal | undefined): Promise<FiringPlan> {
    const plan = new TransactionPlan({ timers: this.timers, signal, where: `Workflow ${this.name}` });
    const input: WorkflowInput = {
      type: 'timer',
      timer: { name: timer.name, at: timer.at, id: timer.id, ...(timer.data === undefined ? {} : { data: timer.data }) },
    };
    await plan.add([workflowStep(this.steps, timer.scope, recordInput(input))], firingCause(this.name, timer));
    return { puts: plan.puts, scheduled: plan.scheduled, dropped: plan.dropped };
  }
}
