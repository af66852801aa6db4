import { ValidationError } from '../errors';
import {
  EventStream,
  attributeIssues,
  describeDataIssues,
  type AnyEventStream,
  type Decider,
  type EventsOfStream,
  type LoadOptions,
  type StreamEvent,
} from '../store';
import { requireTableName, requireText } from '../util';

/** The structured id of a stream's instances (or its string form). */
export type StreamIdOfStream<S> = S extends { readonly $types: { readonly streamId: infer I } } ? I : Readonly<Record<string, string>>;
/** The events a stream takes in an append. */
export type NewEventOfStream<S> = S extends { readonly $types: { readonly newEvent: infer N } }
  ? N
  : { readonly type: string; readonly data: unknown };

/** Options of a {@link command} effect: how its target's state loads, and what its events carry. */
export interface CommandEffectOptions<State> {
  /** Whether the target's load reads strongly consistent (see `CommandOptions.consistent`). @defaultValue false, as `execute` */
  readonly consistent?: boolean | undefined;
  /** Load the target from its latest snapshot (and save them), as `load` does. */
  readonly snapshot?: LoadOptions<State>['snapshot'];
  /** Stored on every event the command appends. */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
}

/** A command on a target stream instance: its decider decides on the instance's state, as `execute` does. */
export interface CommandEffect {
  readonly kind: 'command';
  readonly stream: AnyEventStream;
  /** The instance's id, in its string form. */
  readonly streamId: string;
  readonly decider: Decider<unknown, StreamEvent, unknown>;
  readonly options: CommandEffectOptions<unknown>;
}

/** Events appended at the head of a target stream instance, whatever its state. */
export interface AppendEffect {
  readonly kind: 'append';
  readonly stream: AnyEventStream;
  readonly streamId: string;
  readonly events: ReadonlyArray<unknown>;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
}

/** A message put in an outbox table, for its relay (`OutboxRelay`) to publish in order. */
export interface MessageEffect {
  readonly kind: 'message';
  /** The outbox table (see `outboxTableDefinition`). */
  readonly table: string;
  readonly message: unknown;
}

/** A timer scheduled: due at `at`, it fires once, with `data`, to its reaction's `onTimer` or its workflow's `decide`. */
export interface ScheduleEffect {
  readonly kind: 'schedule';
  /** The timer's name: scheduling a name again replaces its timer. A workflow's names are its instance's own. */
  readonly timer: string;
  /** When it is due, in epoch ms. */
  readonly at: number;
  readonly data?: unknown;
}

/** A timer cancelled by its name (nothing happens when none is scheduled). */
export interface CancelEffect {
  readonly kind: 'cancel';
  readonly timer: string;
}

/**
 * What a reaction (or a workflow's `decide`) asks for, made by {@link command}, {@link append},
 * {@link message}, {@link schedule} and {@link cancel}. A source event's effects are written in one
 * transaction with the reaction's progress: all of them once, or none.
 */
export type Effect = CommandEffect | AppendEffect | MessageEffect | ScheduleEffect | CancelEffect;

/**
 * A command on a target stream instance: loads its state with `decider` (from a snapshot, with `snapshot`),
 * decides, and appends what it decided, in the transaction of the reaction's progress. A lost race (another
 * append took the version) loads and decides again; `decide` may throw a domain error, which fails the
 * source event as a throw of the reaction's would (it counts towards parking).
 *
 * @example
 * ```ts
 * react: (event) => [command(Stock, { sku: event.data.sku }, reserve(event.data.quantity))]
 * ```
 */
export function command<S extends AnyEventStream, State>(
  stream: S,
  id: StreamIdOfStream<S> | string,
  decider: Decider<State, EventsOfStream<S>, NewEventOfStream<S>>,
  options: CommandEffectOptions<State> = {},
): CommandEffect {
  const target = requireStream(stream, 'command');
  if (typeof decider?.evolve !== 'function' || typeof decider.decide !== 'function') {
    throw new ValidationError('Expected the command to have a decider with `initial`, `evolve` and `decide`.', [
      { path: ['decider'], message: 'not a decider' },
    ]);
  }
  return {
    kind: 'command',
    stream: target,
    streamId: target.formatStreamId(id),
    decider: decider as unknown as Decider<unknown, StreamEvent, unknown>,
    options: options,
  };
}

/**
 * Events appended at the head of a target stream instance, whatever its state (a command whose decision
 * needs no state), in the transaction of the reaction's progress.
 *
 * @example
 * ```ts
 * react: (event) => [append(Audit, { day }, [{ type: 'OrderSeen', data: { orderId: event.streamId } }])]
 * ```
 */
export function append<S extends AnyEventStream>(
  stream: S,
  id: StreamIdOfStream<S> | string,
  events: ReadonlyArray<NewEventOfStream<S>>,
  options: { readonly metadata?: Readonly<Record<string, unknown>> | undefined } = {},
): AppendEffect {
  const target = requireStream(stream, 'append');
  if (!Array.isArray(events) || events.length === 0) {
    throw new ValidationError(`An append effect on ${target.name} needs at least one event.`, [{ path: ['events'], message: 'no events' }]);
  }
  return {
    kind: 'append',
    stream: target,
    streamId: target.formatStreamId(id),
    events,
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
  };
}

/**
 * A message put in an outbox table (see `outboxTableDefinition`) in the transaction of the reaction's
 * progress, for `OutboxRelay` to publish: a source instance's messages in the order of its events, each at
 * least once, with a stable `id` to deduplicate on. A message from an event with personal data is sealed
 * for its subjects, as a projection's outbox message is.
 *
 * @example
 * ```ts
 * react: (event) => [message('outbox', { type: 'order-placed', orderId: event.streamId })]
 * ```
 */
export function message(table: string, body: unknown): MessageEffect {
  requireTableName('table', table, 'A message effect');
  const issues = attributeIssues(body, ['message']);
  if (body === undefined || issues.length > 0) {
    throw new ValidationError(`A message can't be stored: ${body === undefined ? 'it is undefined' : describeDataIssues(issues)}.`, issues);
  }
  return { kind: 'message', table, message: body };
}

/**
 * A timer, due at `at` (a Date or epoch ms), that fires once, never before, with `data`: to the reaction's
 * `onTimer`, or as an input of the workflow that scheduled it. Scheduling a name again replaces its timer.
 * Needs the reaction's (or workflow's) `timers`. Set `at` from the event (`event.timestamp`), not from the
 * clock, so that a redelivery schedules the same time.
 *
 * @example
 * ```ts
 * schedule('payment-due', Date.parse(event.timestamp) + 30 * 60_000, { orderId })
 * ```
 */
export function schedule(timer: string, at: Date | number, data?: unknown): ScheduleEffect {
  requireText('timer', timer, 'A schedule effect');
  const ms = at instanceof Date ? at.getTime() : at;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new ValidationError(`Expected the timer's \`at\` to be a Date or epoch milliseconds, got ${String(at)}.`, [
      { path: ['at'], message: 'not a time' },
    ]);
  }
  const issues = data === undefined ? [] : attributeIssues(data, ['data']);
  if (issues.length > 0) throw new ValidationError(`A timer's data can't be stored: ${describeDataIssues(issues)}.`, issues);
  return { kind: 'schedule', timer, at: ms, ...(data === undefined ? {} : { data }) };
}

/**
 * Cancels the timer of this name, if one is scheduled (a later schedule of the name starts afresh).
 *
 * @example
 * ```ts
 * react: (event) => (event.type === 'PaymentReceived' ? cancel(`payment-due-${event.data.orderId}`) : undefined)
 * ```
 */
export function cancel(timer: string): CancelEffect {
  requireText('timer', timer, 'A cancel effect');
  return { kind: 'cancel', timer };
}

function requireStream(stream: unknown, what: string): AnyEventStream {
  if (!(stream instanceof EventStream)) {
    throw new ValidationError(`Expected the ${what} effect's stream to be an EventStream.`, [{ path: ['stream'], message: 'not an EventStream' }]);
  }
  return stream as AnyEventStream;
}
