import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../errors';
import type { PoisonPolicy } from '../projector';
import { EventStream, type AnyEventStream, type EventsOfStream } from '../store';
import { DynamoTimers } from '../timers';
import { requireFunction, requireTableName, type Logger, type RetryOptions } from '../util';
import type { Effect } from './effects';

/** What a reaction answers for an event or a timer: an effect, several, or none. */
export type Reacted = Effect | ReadonlyArray<Effect> | undefined | void;

/** A timer as it fires, to a reaction's `onTimer` or as a workflow's input. */
export interface FiredTimer {
  readonly name: string;
  /** When it was due, in epoch ms (it fires at or after). */
  readonly at: number;
  readonly data?: unknown;
  /** The schedule's id: scheduling the name again gives another. */
  readonly id: string;
}

/** Options of {@link Reaction}. */
export interface ReactionOptions<S extends AnyEventStream> {
  /**
   * Names the reaction: its progress rows, timers and messages are stored under it, so keep it stable (a
   * new name starts afresh, from the first event, or from `since`). No `#`.
   */
  readonly name: string;
  /** The streams whose events it reacts to. */
  readonly streams: ReadonlyArray<S>;
  readonly client: DynamoDBClient;
  /** The reactions table: its progress rows, one per source instance (see `reactionsTableDefinition`). */
  readonly table: string;
  /**
   * The effects of an event: commands, appends, messages, timers (see `command`, `append`, `message`,
   * `schedule`, `cancel`). They are written once, with the reaction's progress, in one transaction. It runs
   * again after a lost race and on a redelivery of an event whose effects were not written, so it must
   * answer from the event alone (decisions on a target's state belong in the command's decider) and do
   * nothing itself. A throw fails the event, which counts towards parking (`poison`).
   */
  readonly react: (event: EventsOfStream<S>) => Reacted | Promise<Reacted>;
  /**
   * The events to react to; the others are passed over without a read or a write (a filter on `type`, say).
   * Must be deterministic. @defaultValue every event of the streams
   */
  readonly filter?: ((event: EventsOfStream<S>) => boolean) | undefined;
  /**
   * React only to events appended at or after this time: those before move the progress without effects.
   * A new reaction starts "now" with the time of its deployment (a fixed value, not one taken at start-up,
   * which would differ between processes). @defaultValue every event, from the first
   */
  readonly since?: Date | number | undefined;
  /** The timers its `schedule` and `cancel` effects use, and its `onTimer` fires from. */
  readonly timers?: DynamoTimers | undefined;
  /** The effects of one of its timers firing (once, at or after its time). @defaultValue none */
  readonly onTimer?: ((timer: FiredTimer) => Reacted | Promise<Reacted>) | undefined;
  /**
   * What to do with a source instance whose event keeps failing (`react` or a decider throws, an effect is
   * refused): `'retry'` fails its records on every delivery; `{ park: { afterAttempts } }` parks the
   * instance after that many failed attempts (transient failures never count), until `retryParked` or
   * `skipParked`. @defaultValue 'retry'
   */
  readonly poison?: PoisonPolicy | undefined;
  /** Receives what happens to failing instances: a failed attempt counted (warn), an instance parked (error), a replay (info). */
  readonly logger?: Logger | undefined;
  /** Source instances handled at once by a call. @defaultValue 10, as a projection's rows */
  readonly concurrency?: number | undefined;
  /** Tries of an instance's write against concurrent writers (a progress row or a target's version taken). @defaultValue as a projection's */
  readonly retry?: RetryOptions | undefined;
}

/** The options a reaction runs on, checked. */
export interface ResolvedReaction<S extends AnyEventStream> {
  readonly name: string;
  readonly streams: ReadonlyArray<AnyEventStream>;
  readonly filter: ((event: EventsOfStream<S>) => boolean) | undefined;
  readonly since: number | undefined;
  readonly timers: DynamoTimers | undefined;
}

/** Checks what the projector's options do not: `ConfigurationError` naming the first option that can't be honoured. */
export function resolveReaction<S extends AnyEventStream>(options: ReactionOptions<S>): ResolvedReaction<S> {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError('Expected the options of a Reaction.');
  const { name } = options;
  if (typeof name !== 'string' || name === '' || name.includes('#'))
    throw new ConfigurationError('Reaction: expected `name` to be a non-empty name without "#".');
  const where = `Reaction ${name}`;
  if (!Array.isArray(options.streams) || options.streams.length === 0 || options.streams.some((stream) => !(stream instanceof EventStream))) {
    throw new ConfigurationError(`${where}: expected \`streams\` to list the EventStreams it reacts to.`);
  }
  const names = options.streams.map((stream) => stream.name);
  if (new Set(names).size !== names.length) throw new ConfigurationError(`${where}: \`streams\` lists a stream twice.`);
  requireTableName('table', options.table, where);
  requireFunction('react', options.react, where);
  if (options.filter !== undefined) requireFunction('filter', options.filter, where);
  if (options.onTimer !== undefined) requireFunction('onTimer', options.onTimer, where);
  if (options.timers !== undefined && !(options.timers instanceof DynamoTimers)) {
    throw new ConfigurationError(`${where}: expected \`timers\` to be a DynamoTimers (or SchedulerTimers).`);
  }
  return { name, streams: options.streams, filter: options.filter, since: resolveSince(options.since, where), timers: options.timers };
}

function resolveSince(since: Date | number | undefined, where: string): number | undefined {
  if (since === undefined) return undefined;
  const ms = since instanceof Date ? since.getTime() : since;
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw new ConfigurationError(`${where}: expected \`since\` to be a Date or epoch milliseconds.`);
  return ms;
}
