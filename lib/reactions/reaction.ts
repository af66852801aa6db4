import { ConfigurationError } from '../errors';
import { processBatch, type ProcessBatchOptions, type ProcessResult, type StreamRecordLike } from '../lambda';
import type { AnyProjection, ApplyResult, AppliedOutcome, Entry, EntryOptions, ParkedOutcome, RowOutcome } from '../outcome';
import { ProjectionBase, singleSourceCheckpoints, type CallOptions, type Key } from '../projector';
import type { ReadModel } from '../read-model';
import { commitsOf, instanceKey, type AnyEventStream, type EventsOfStream, type InlinePlan, type StreamEvent, type StreamIdOf } from '../store';
import type { DueTimer, DynamoTimers, FiringPlan, TimerOwner } from '../timers';
import type { Effect } from './effects';
import { ReactionEffects } from './effect-batch';
import { REMEMBERED_PROGRESS_ROWS, progressModel, type ProgressState } from './progress';
import { resolveReaction, type FiredTimer, type Reacted, type ReactionOptions } from './reaction-options';
import { TransactionPlan, type Cause, type PlanContext, type PlanningEffect } from './transaction-plan';
import { inReactSpan } from './trace';
import { WakeUps } from './wake-ups';

/** The result of a reaction's own `processBatch`. */
export type ReactionBatchResult<Event, R = StreamRecordLike> = Omit<
  ProcessResult<Record<'reaction', AnyProjection>, Record<string, never>, R>,
  'outcomes' | 'ignored' | 'ignoredEvents' | 'unrouted'
> & {
  /** One outcome per source instance of the batch: `applied` lists the events whose effects this call wrote. */
  readonly outcomes: ReadonlyArray<RowOutcome<Event, Key>>;
  /** Positions of the events `filter` passed over. */
  readonly ignored: ReadonlyArray<number>;
};

const VERSION_DIGITS = 12;

/**
 * Reacts to the events of one or more streams with effects on others (see `command`, `append`, `message`,
 * `schedule`, `cancel`), exactly once per event: its progress in each source instance is a row, written
 * in ONE transaction with the effects of the events it moves past. A redelivered, reordered or concurrent
 * event finds its effects written with the progress that covers it, and writes nothing; a lost race (the
 * progress or a target moved) reads and plans again; a write whose answer was lost knows its own. No
 * idempotency key is involved, so nothing expires: a parked event retried days later still finds
 * whether its effects were written. Events are handled in version order per source instance, a gap read
 * from the store. Delivered as projections are: `processBatch`, the Lambda and Kinesis handlers, Pipes,
 * the change feed (a reaction goes where a projection does), `catchUp`, and `backfill` over history.
 *
 * What "once" covers is what DynamoDB writes: effects outside it (a call to a payment provider) belong
 * behind an outbox `message`, published at least once with a stable id.
 *
 * @example
 * ```ts
 * const reserveStock = new Reaction({
 *   name: 'reserve-stock', streams: [OrderEvents], client, table: 'reactions',
 *   filter: (event) => event.type === 'OrderPlaced',
 *   react: (event) => command(Stock, { sku: event.data.sku }, reserve(event.streamId, event.data.quantity)),
 * })
 * export const handler = lambdaHandler({ projections: [reserveStock] })
 * ```
 */
export class Reaction<S extends AnyEventStream = AnyEventStream>
  extends ProjectionBase<ReadModel, ProgressState, EventsOfStream<S>, RowOutcome, RowOutcome<EventsOfStream<S>, Key>>
  implements TimerOwner
{
  readonly streams: ReadonlyArray<S>;
  /** The timers of its `schedule` and `cancel` effects, if it has any. */
  readonly timers: DynamoTimers | undefined;
  private readonly wakeUps: WakeUps;
  private readonly onTimer: ((timer: FiredTimer) => Reacted | Promise<Reacted>) | undefined;

  constructor(options: ReactionOptions<S>) {
    const resolved = resolveReaction(options);
    const { name, since, timers } = resolved;
    const where = `Reaction ${name}`;
    const filter = resolved.filter as ((event: StreamEvent) => boolean) | undefined;
    const react = options.react as (event: StreamEvent) => Reacted | Promise<Reacted>;
    const context: PlanContext = { timers, signal: undefined, where };
    const wakeUps = new WakeUps(timers, options.logger);
    // An event's fold plans its effects onto those of the events before it in the write (see ReactionEffects).
    const evolve = async (state: ProgressState, event: StreamEvent): Promise<ProgressState> => {
      const moved = { source: state.source, version: event.version };
      if (since !== undefined && Date.parse(event.timestamp) < since) return { ...moved, plan: state.plan };
      const effects = effectsOf(await react(event), where);
      if (effects.length === 0) return { ...moved, plan: state.plan };
      const plan = state.plan?.next() ?? new TransactionPlan(context);
      const before = { scheduled: plan.scheduled.length, dropped: plan.dropped.length };
      await inReactSpan(name, event, () => plan.add(effects, causeOf(name, event)));
      wakeUps.note(event, plan.scheduled.slice(before.scheduled), plan.dropped.slice(before.dropped));
      return { ...moved, plan };
    };
    super(
      {
        name,
        readModel: progressModel(options.client, options.table, name),
        poison: options.poison,
        logger: options.logger,
        concurrency: options.concurrency,
        retry: options.retry,
      },
      {
        defaultName: name,
        streams: resolved.streams,
        keyOf: (event) => (filter === undefined || filter(event) ? { source: instanceKey(event) } : undefined),
        initial: (_group, event) => ({ source: instanceKey(event), version: 0 }),
        evolve,
        toItem: (state) => ({ source: state.source, version: state.version }),
        checkpoints: () => singleSourceCheckpoints({ field: 'version', offset: 0, optional: false }),
        revision: true,
        messages: { writer: new ReactionEffects(name), inBackfill: true },
        // An instance's events reach one consumer in turn (a shard's): its progress is remembered, not read
        // again, and there is none before an instance's first event. The write's condition checks both.
        memory: { rows: REMEMBERED_PROGRESS_ROWS, absentFor: (group) => group.events[0]?.version === 1 },
      },
    );
    this.streams = options.streams;
    this.timers = timers;
    this.wakeUps = wakeUps;
    this.onTimer = options.onTimer;
  }

  /** @internal reacts to events at given positions (records' positions, for processBatch), then tells the timers what the effects written scheduled. */
  override async applyEntries(
    entries: ReadonlyArray<Entry<StreamEvent>>,
    options: EntryOptions = {},
  ): Promise<ApplyResult<StreamEvent, Key, RowOutcome>> {
    const result = await super.applyEntries(entries, options);
    await this.wakeUps.after(entries, result);
    return result;
  }

  /**
   * Reacts to decoded events: per source instance (concurrently across instances) sort and dedupe, read its
   * progress (unless this process wrote it last, or the instance starts here), fill any gap with one read,
   * plan each event's effects, write them with the progress. Never
   * rejects for an instance's error: each gets its own outcome, whose `applied` lists the events whose
   * effects this call wrote.
   */
  applyBatch(events: ReadonlyArray<EventsOfStream<S>>, options: CallOptions = {}): Promise<ApplyResult<EventsOfStream<S>, Key>> {
    return this.applyListed(events, options) as Promise<ApplyResult<EventsOfStream<S>, Key>>;
  }

  /** Reacts to one event (and any before it not reacted to yet); rejects with its instance's error. `undefined` for an event `filter` passes over. */
  async apply(
    event: EventsOfStream<S>,
    options: CallOptions = {},
  ): Promise<AppliedOutcome<EventsOfStream<S>, Key> | ParkedOutcome<Key, EventsOfStream<S>> | undefined> {
    return (await this.applyOne(event, options)) as AppliedOutcome<EventsOfStream<S>, Key> | ParkedOutcome<Key, EventsOfStream<S>> | undefined;
  }

  /**
   * Decodes the INSERTs of its streams' events in raw stream records, reacts to them, and builds the
   * partial batch response: the earliest record of every failed instance plus every record that failed to
   * decode.
   */
  async processBatch<R>(
    records: ReadonlyArray<R>,
    options: Omit<ProcessBatchOptions<Record<'reaction', AnyProjection>, Record<string, never>, R>, 'projections' | 'streams'> = {},
  ): Promise<ReactionBatchResult<EventsOfStream<S>, R>> {
    const result = await processBatch(records, { ...options, projections: [this] });
    return {
      outcomes: (result.outcomes[this.name] ?? []) as ReadonlyArray<RowOutcome<EventsOfStream<S>, Key>>,
      ignored: result.ignored[this.name] ?? [],
      decodeFailures: result.decodeFailures,
      failedRecords: result.failedRecords,
      response: result.response,
    };
  }

  /**
   * Reacts to every event of a source instance not reacted to yet, up to its head: walks back from the head
   * a commit at a time (one strongly consistent Query each) to the newest event `filter` keeps, and reacts
   * to it, which fills the gap before it from the store.
   */
  async catchUp(
    stream: S,
    streamId: StreamIdOf<S['streamIdFields']> | string,
    options: CallOptions = {},
  ): Promise<AppliedOutcome<EventsOfStream<S>, Key> | ParkedOutcome<Key, EventsOfStream<S>> | undefined> {
    if (!this.streams.includes(stream)) throw new ConfigurationError(`Reaction ${this.name}: ${String(stream?.name)} is not one of its streams.`);
    const id = stream.formatStreamId(streamId);
    for await (const commit of commitsOf(stream).commitsNewestFirst(id, options.signal)) {
      const latest = [...commit].reverse().find((event) => this.runtime.keyOf(event) !== undefined);
      if (latest !== undefined) return this.apply(latest as EventsOfStream<S>, options);
    }
    return undefined;
  }

  /** @internal a reaction's effects are written with its progress, never in an append's transaction: it always leaves the append. */
  override async planInline(): Promise<InlinePlan> {
    return {
      kind: 'deferred',
      reason: 'failed',
      error: new ConfigurationError(`Reaction ${this.name} reacts to delivered events; it is not an inline projection.`),
    };
  }

  /** Plans the effects of one of its timers firing, its `onTimer`'s (see `TimerOwner`): the sweep calls it, an app need not. */
  async planFiring(timer: DueTimer, signal: AbortSignal | undefined): Promise<FiringPlan> {
    const where = `Reaction ${this.name}`;
    const plan = new TransactionPlan({ timers: this.timers, signal, where });
    const fired: FiredTimer = { name: timer.name, at: timer.at, id: timer.id, ...(timer.data === undefined ? {} : { data: timer.data }) };
    const effects = this.onTimer === undefined ? [] : effectsOf(await this.onTimer(fired), where);
    await plan.add(effects, firingCause(this.name, timer));
    return { puts: plan.puts, scheduled: plan.scheduled, dropped: plan.dropped };
  }
}

/** What a source event's effects are named after: the event, and its instance's messages partition. */
export function causeOf(owner: string, event: StreamEvent, scope = ''): Cause {
  const instance = instanceKey(event);
  return {
    owner,
    scope,
    id: `${instance}@${event.version}`,
    messages: { partition: JSON.stringify([owner, instance]), order: String(event.version).padStart(VERSION_DIGITS, '0') },
    event,
  };
}

/** What a timer firing's effects are named after: the timer's schedule. */
export function firingCause(owner: string, timer: DueTimer): Cause {
  return {
    owner,
    scope: timer.scope,
    id: `timer:${timer.id}`,
    messages: { partition: JSON.stringify([owner, 'timer', timer.scope, timer.name]), order: String(timer.at).padStart(15, '0') },
  };
}

const KINDS = new Set(['command', 'append', 'message', 'schedule', 'cancel', 'planning']);

/** The effects a reaction answered, as a list; anything but effects is a `ConfigurationError` naming the reaction. */
export function effectsOf(
  reacted: Reacted | PlanningEffect | ReadonlyArray<Effect | PlanningEffect>,
  where: string,
): ReadonlyArray<Effect | PlanningEffect> {
  if (reacted === undefined) return [];
  const effects = (Array.isArray(reacted) ? reacted : [reacted]) as ReadonlyArray<Effect | PlanningEffect>;
  for (const effect of effects) {
    if (typeof effect !== 'object' || effect === null || !KINDS.has((effect as { kind?: unknown }).kind as string)) {
      throw new ConfigurationError(`${where}: expected effects made by command, append, message, schedule or cancel, got ${JSON.stringify(effect)}.`);
    }
  }
  return effects;
}
