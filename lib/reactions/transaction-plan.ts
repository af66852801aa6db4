import { ConfigurationError } from '../errors';
import { itemSize } from '../dynamo';
import { outboxPut } from '../projector';
import { commitsOf, instanceKey, planAppendTo, type Decider, type EventStream, type LoadOptions, type StreamEvent, type TransactPut } from '../store';
import { currentTraceContext } from '../telemetry';
import { cancelPut, schedulePut, timerItemKey, type DynamoTimers, type ScheduledTimer, type TimerKey } from '../timers';
import type { AppendEffect, CommandEffect, Effect } from './effects';

/** What caused effects: it names their items (timers' ids, messages' ids and order), so planning them again names them alike. */
export interface Cause {
  /** The reaction's or workflow's name: the owner of the timers and the writer of the messages. */
  readonly owner: string;
  /** The scope of the timers its effects name: a workflow instance's id, or `''` (a reaction's). */
  readonly scope: string;
  /** Unique among causes of the owner: the source event (`<instance>@<version>`) or the timer firing. */
  readonly id: string;
  /** Where its messages go in the outbox: their partition (published in order), and their place in it. */
  readonly messages: { readonly partition: string; readonly order: string };
  /** The event behind it: messages carry its trace context and are sealed for its personal data's subjects. */
  readonly event?: StreamEvent | undefined;
}

/** What an effect did, as a workflow records it among its outputs. */
export type EffectOutcome =
  | {
      readonly kind: 'command' | 'append';
      readonly stream: string;
      readonly streamId: string;
      /** The events it appended (none when the command decided nothing). */
      readonly events: ReadonlyArray<{ readonly type: string; readonly version: number }>;
    }
  | { readonly kind: 'message'; readonly table: string; readonly id: string }
  | { readonly kind: 'schedule'; readonly timer: string; readonly at: number; readonly data?: unknown }
  | { readonly kind: 'cancel'; readonly timer: string };

/** An effect that plans itself on the transaction (a workflow's step): the package's own, never an app's. */
export interface PlanningEffect {
  readonly kind: 'planning';
  plan(plan: TransactionPlan, cause: Cause): Promise<void>;
}

/** Where planning reads and writes: the timers of schedule and cancel effects, and the call's signal. */
export interface PlanContext {
  readonly timers: DynamoTimers | undefined;
  readonly signal: AbortSignal | undefined;
  /** Who plans, for errors: `Reaction reserve-stock`. */
  readonly where: string;
}

/** An append an earlier effect of the same transaction planned on a stream instance, not written yet. */
interface PendingAppend {
  /** The version the instance was read at, which the first planned commit goes after. */
  readonly base: number;
  readonly events: ReadonlyArray<StreamEvent>;
}

/**
 * The writes of one transaction's effects, planned and not sent (a reaction's row write carries them, or a
 * timer's firing): each effect read what it decides on and became Puts, conditioned where another writer
 * could have got there first (a commit's version). Effects on a stream instance an earlier effect of the
 * transaction appended to decide on the state those pending events lead to, and their commits follow them.
 * A plan is extended by copies (`next`), so that a fold can drop the last event's effects and keep the rest.
 */
export class TransactionPlan {
  private readonly commitPuts: TransactPut[];
  /** Timer Puts by their item's key: a timer scheduled and cancelled in one transaction keeps the last. */
  private readonly timerPuts: Map<string, TransactPut>;
  private readonly pending: Map<string, PendingAppend>;
  readonly scheduled: ScheduledTimer[];
  readonly dropped: TimerKey[];

  constructor(
    readonly context: PlanContext,
    from?: TransactionPlan,
  ) {
    this.commitPuts = [...(from?.commitPuts ?? [])];
    this.timerPuts = new Map(from?.timerPuts ?? []);
    this.pending = new Map(from?.pending ?? []);
    this.scheduled = [...(from?.scheduled ?? [])];
    this.dropped = [...(from?.dropped ?? [])];
  }

  /** A copy to add to, this one unchanged. */
  next(): TransactionPlan {
    return new TransactionPlan(this.context, this);
  }

  /** Every Put of the plan, commits and messages in the order planned, then the timers'. */
  get puts(): ReadonlyArray<TransactPut> {
    return [...this.commitPuts, ...this.timerPuts.values()];
  }

  /** The plan's size against a transaction's limits: its items and their bytes. */
  size(): { readonly items: number; readonly bytes: number } {
    const puts = this.puts;
    return { items: puts.length, bytes: puts.reduce((sum, put) => sum + itemSize(put.Item ?? {}), 0) };
  }

  /** Plans `effects`, in order, for `cause`; resolves what each did. */
  async add(effects: ReadonlyArray<Effect | PlanningEffect>, cause: Cause): Promise<EffectOutcome[]> {
    const outcomes: EffectOutcome[] = [];
    for (const [index, effect] of effects.entries()) {
      switch (effect.kind) {
        case 'command':
          outcomes.push(await this.command(effect));
          break;
        case 'append':
          outcomes.push(await this.append(effect));
          break;
        case 'message': {
          const id = `${cause.id}#${index}`;
          const order = `${cause.messages.order}#${String(index).padStart(3, '0')}`;
          const put = outboxPut({
            table: effect.table,
            writer: cause.owner,
            partition: cause.messages.partition,
            sortKey: order,
            id,
            key: { cause: cause.id },
            message: effect.message,
            event: cause.event,
          });
          this.commitPuts.push({ TableName: put.table, Item: put.item });
          outcomes.push({ kind: 'message', table: effect.table, id });
          break;
        }
        case 'schedule': {
          const timers = this.requireTimers('schedules a timer');
          const timer: ScheduledTimer = {
            owner: cause.owner,
            scope: cause.scope,
            name: effect.timer,
            at: effect.at,
            id: `${cause.id}#${index}`,
            ...(effect.data === undefined ? {} : { data: effect.data }),
          };
          this.putTimer(schedulePut(timers.table, timer, timers.shards, currentTraceContext()));
          this.scheduled.push(timer);
          outcomes.push({ kind: 'schedule', timer: effect.timer, at: effect.at, ...(effect.data === undefined ? {} : { data: effect.data }) });
          break;
        }
        case 'cancel': {
          const timers = this.requireTimers('cancels a timer');
          const key = { owner: cause.owner, scope: cause.scope, name: effect.timer };
          this.putTimer(cancelPut(timers.table, key, `${cause.id}#${index}`, timers.clock.now()));
          this.dropped.push(key);
          outcomes.push({ kind: 'cancel', timer: effect.timer });
          break;
        }
        case 'planning':
          await effect.plan(this, cause);
          break;
        default:
          throw new ConfigurationError(
            `${this.context.where}: expected effects made by command, append, message, schedule or cancel, got ${JSON.stringify(effect)}.`,
          );
      }
    }
    return outcomes;
  }

  /**
   * Decides on a stream instance's state and plans the append of what was decided: the state loaded with
   * `fold` (eventually consistent unless `consistent`; from a snapshot with `snapshot`), on which the appends
   * this transaction already plans on the instance are folded. Resolves the events planned (none when
   * `decide` answered none) and the version they lead to.
   */
  async decideOn<State>(
    stream: EventStream,
    streamId: string,
    fold: Pick<Decider<State, StreamEvent, unknown>, 'initial' | 'evolve'>,
    options: Pick<CommandEffect['options'], 'consistent' | 'snapshot' | 'metadata'>,
    decide: (state: State, version: number) => Promise<ReadonlyArray<unknown>>,
  ): Promise<{ readonly events: ReadonlyArray<StreamEvent>; readonly version: number }> {
    const { signal } = this.context;
    const key = instanceKey({ streamName: stream.name, streamId });
    const pending = this.pending.get(key);
    const load = (consistent: boolean) =>
      stream.load<State>(streamId, fold, {
        consistent,
        signal,
        ...(options.snapshot === undefined ? {} : { snapshot: options.snapshot as NonNullable<LoadOptions<State>['snapshot']> }),
      });
    let loaded = await load(options.consistent === true);
    // An eventually consistent load behind what an earlier effect of this transaction read: read again.
    if (pending !== undefined && loaded.version < pending.base) loaded = await load(true);
    // The pending appends follow the version they were planned after. Past it, the stream moved on since:
    // their first commit's version is taken, so the transaction fails and is planned again.
    let state = loaded.state;
    for (const event of pending?.events ?? []) state = fold.evolve(state, event);
    const version = pending === undefined ? loaded.version : pending.base + pending.events.length;
    const decided = await decide(state, version);
    if (decided.length === 0) return { events: [], version };
    return this.planAppend(stream, streamId, decided, version, pending?.base ?? loaded.version, options.metadata);
  }

  private async command(effect: CommandEffect): Promise<EffectOutcome> {
    const { decider } = effect;
    const decide = decider.decide as NonNullable<typeof decider.decide>;
    const { events } = await this.decideOn(
      effect.stream as unknown as EventStream,
      effect.streamId,
      decider,
      effect.options,
      async (state, version) => decide(state, version),
    );
    return { kind: 'command', stream: effect.stream.name, streamId: effect.streamId, events: events.map(typeAndVersion) };
  }

  private async append(effect: AppendEffect): Promise<EffectOutcome> {
    const key = instanceKey({ streamName: effect.stream.name, streamId: effect.streamId });
    const pending = this.pending.get(key);
    // At the head, read strongly consistent (one item): it ends a commit. After this transaction's own appends, past them.
    const head = pending === undefined ? await commitsOf(effect.stream).head(effect.streamId, this.context.signal) : undefined;
    const version = pending === undefined ? (head as number) : pending.base + pending.events.length;
    const { events } = await this.planAppend(effect.stream, effect.streamId, effect.events, version, pending?.base ?? version, effect.metadata);
    return { kind: 'append', stream: effect.stream.name, streamId: effect.streamId, events: events.map(typeAndVersion) };
  }

  private async planAppend(
    stream: { readonly name: string },
    streamId: string,
    events: ReadonlyArray<unknown>,
    expectedVersion: number,
    base: number,
    metadata: Readonly<Record<string, unknown>> | undefined,
  ): Promise<{ readonly events: ReadonlyArray<StreamEvent>; readonly version: number }> {
    const planned = await planAppendTo(stream, streamId, events, {
      expectedVersion,
      signal: this.context.signal,
      ...(metadata === undefined ? {} : { metadata }),
    });
    this.commitPuts.push(...planned.puts);
    const key = instanceKey({ streamName: stream.name, streamId });
    this.pending.set(key, { base, events: [...(this.pending.get(key)?.events ?? []), ...planned.events] });
    return { events: planned.events, version: planned.version };
  }

  private putTimer(put: TransactPut): void {
    const item = put.Item ?? {};
    const key = JSON.stringify([put.TableName, item['pk'], item['sk']]);
    this.timerPuts.delete(key);
    this.timerPuts.set(key, put);
  }

  private requireTimers(what: string): DynamoTimers {
    const { timers } = this.context;
    if (timers === undefined)
      throw new ConfigurationError(`${this.context.where} ${what} but has no \`timers\`: give it a DynamoTimers (or SchedulerTimers).`);
    return timers;
  }
}

function typeAndVersion(event: StreamEvent): { readonly type: string; readonly version: number } {
  return { type: event.type, version: event.version };
}

/** Whether a plan's timer Put is the one of `key` (a firing that schedules its own timer again). */
export function isTimerPut(put: TransactPut, key: TimerKey): boolean {
  const wanted = timerItemKey(key);
  return Object.entries(wanted).every(([attribute, value]) => put.Item?.[attribute] === value);
}
