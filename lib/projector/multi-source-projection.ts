import { ConfigurationError } from '../errors';
import {
  EventStream,
  instanceKey,
  type AnyEventStream,
  type InlinePlan,
  type InlineProjection,
  type KeyOfModel,
  type ProjectedRow,
  type ReadModel,
  type Stored,
  type StreamEvent,
} from '../store';
import type { Evolved } from './fold-row';
import type { ApplyResult, EventRef, MultiSourceRowOutcome, ParkedRow } from './outcome';
import { listParked, replayParked, retryParkedRows } from './parked-rows';
import type { AnyProjection, CallOptions, EntryOptions, EventsOfStream, RowOfModel, StreamIdOfStream } from './types';
import { backfillRows } from './backfill';
import type { BackfillOptions, BackfillProgress } from './backfill-options';
import { rebuildRow } from './rebuild';
import { applyEntries } from './row-engine';
import { planInline } from './inline';
import { waitForEvents, waitForRow, type WaitForOptions } from './read-your-writes';
import type { RowRuntime } from './runtime';
import type { Entry } from './row-plan';
import { resolveRuntime, type CommonProjectionOptions } from './runtime';

type Key = Readonly<Record<string, unknown>>;

/** One source of a multi-source projection: a stream and the row each of its events feeds. */
export interface Source<S, RowKey = Key> {
  readonly stream: S;
  /** The row an event feeds (its key fields), or `undefined` to ignore the event. */
  readonly key: (streamId: StreamIdOfStream<S>, event: EventsOfStream<S>) => RowKey | undefined;
}

/** Each source of a projection, for the streams `Streams` (inferred from the `stream` of each source). */
export type Sources<Streams extends Record<string, AnyEventStream>, RowKey = Key> = { readonly [K in keyof Streams]: Source<Streams[K], RowKey> };

type SourceEvents<Streams> = { [K in keyof Streams]: EventsOfStream<Streams[K]> }[keyof Streams];

/** Options of {@link MultiSourceProjection}. */
export interface MultiSourceProjectionOptions<Streams extends Record<string, AnyEventStream>, M, State> extends CommonProjectionOptions<
  M,
  State,
  SourceEvents<Streams>
> {
  /** @defaultValue `<stream names joined with +>-><read model name>` */
  readonly name?: string | undefined;
  /** The streams feeding the rows, by name. */
  readonly sources: Sources<Streams, KeyOfModel<M>>;
  /** The state a row starts from, before `event`. */
  readonly initial: (key: KeyOfModel<M>, event: SourceEvents<Streams>) => State;
  /** The next state, `skipEvent` or `removeRow`. Events of one source instance come in version order; across instances the order is not defined. */
  readonly evolve: (state: State, event: SourceEvents<Streams>) => Evolved<State> | Promise<Evolved<State>>;
  readonly toItem?: ((state: State, context: { readonly key: KeyOfModel<M> }) => RowOfModel<M>) | undefined;
}

/**
 * A projection whose rows are fed by several streams, and by several instances of a stream (a customer
 * row fed by all of that customer's orders). Each row keeps a checkpoint per source instance and a
 * revision; a gap is filled per instance; one write per row and call is conditioned on the revision read.
 *
 * @example
 * ```ts
 * const customers = new MultiSourceProjection({
 *   readModel: CustomerTotals,
 *   sources: { orders: { stream: OrderEvents, key: (id, event) => event.type === 'OrderPlaced' ? ... : ... } },
 *   initial: (key) => ({ customer: key.customer, orders: 0 }),
 *   evolve: (state, event) => ...,
 * })
 * ```
 */
export class MultiSourceProjection<Streams extends Record<string, AnyEventStream>, M extends ReadModel = ReadModel, State = Record<string, unknown>>
  implements AnyProjection, InlineProjection
{
  readonly name: string;
  readonly readModel: M;
  readonly streams: ReadonlyArray<AnyEventStream>;
  /** Type-level only: the events this projection folds. */
  declare readonly $event: SourceEvents<Streams>;
  private readonly runtime: RowRuntime<State>;

  constructor(options: MultiSourceProjectionOptions<Streams, M, State>) {
    const sources = Object.values(options.sources ?? {}) as Array<Source<AnyEventStream>>;
    if (sources.length === 0) throw new ConfigurationError('A multi-source projection needs at least one source.');
    const byName = new Map<string, Source<AnyEventStream>>();
    for (const source of sources) {
      if (!(source.stream instanceof EventStream)) throw new ConfigurationError('Expected each source `stream` to be an EventStream.');
      if (typeof source.key !== 'function') throw new ConfigurationError(`Source ${source.stream.name}: expected \`key\` to be a function.`);
      if (byName.has(source.stream.name)) throw new ConfigurationError(`Two sources read stream ${source.stream.name}: give each stream one source.`);
      byName.set(source.stream.name, source);
    }
    if (typeof options.initial !== 'function')
      throw new ConfigurationError(`Projection ${options.name ?? [...byName.keys()].join('+')}: expected \`initial\` to be a function.`);
    const initial = options.initial as (key: Key, event: StreamEvent) => State;
    const toItem = options.toItem as ((state: State, context: { key: Key }) => Record<string, unknown>) | undefined;
    this.runtime = resolveRuntime<State>(options as never, {
      defaultName: `${[...byName.keys()].join('+')}->${(options.readModel as ReadModel | undefined)?.name}`,
      streams: sources.map((source) => source.stream),
      keyOf: (event) => {
        const source = byName.get(event.streamName);
        return source === undefined
          ? undefined
          : (source.key as (id: unknown, e: StreamEvent) => Key | undefined)(source.stream.parseStreamId(event.streamId), event);
      },
      initial: (group, event) => initial(group.key, event),
      evolve: options.evolve,
      toItem: (state, group) => (toItem === undefined ? (state as Record<string, unknown>) : toItem(state, { key: group.key })),
      checkpoints: () => ({ kind: 'perInstance' }),
      revision: true,
    });
    this.name = this.runtime.name;
    this.readModel = options.readModel;
    this.streams = sources.map((source) => source.stream);
  }

  /** Applies decoded events of any source; never rejects for a row's error. */
  applyBatch(
    events: ReadonlyArray<SourceEvents<Streams>>,
    options: CallOptions = {},
  ): Promise<ApplyResult<SourceEvents<Streams>, Key, MultiSourceRowOutcome<SourceEvents<Streams>, Key>>> {
    return this.applyEntries(
      (events as ReadonlyArray<StreamEvent>).map((event, position) => ({ event, position })),
      options,
    ) as Promise<ApplyResult<SourceEvents<Streams>, Key, MultiSourceRowOutcome<SourceEvents<Streams>, Key>>>;
  }

  /** @internal plans this projection's rows for an append's transaction (the append's `inline` option). */
  planInline(events: ReadonlyArray<StreamEvent>, previousVersion: number, signal?: AbortSignal): Promise<InlinePlan> {
    return planInline(this.runtime, events, previousVersion, signal);
  }

  /** @internal */
  applyEntries(
    entries: ReadonlyArray<Entry<StreamEvent>>,
    options: EntryOptions = {},
  ): Promise<ApplyResult<StreamEvent, Key, MultiSourceRowOutcome>> {
    return applyEntries(this.runtime, entries, { signal: options.signal, logger: options.logger }) as Promise<
      ApplyResult<StreamEvent, Key, MultiSourceRowOutcome>
    >;
  }

  /**
   * Brings every row up to date over the whole history, while deliveries go on: a parallel Scan lists the
   * stream instances, and each instance's events are applied through the same conditional writes as a
   * delivery, so both can run at once and no event is applied twice. Writes no outbox messages. Progress
   * is saved per scan segment in the read model's table; after a crash, call it again to resume. Resolves
   * the final progress.
   * Each source stream's instances are listed (one scan per events table).
   */
  backfill(options: BackfillOptions = {}): Promise<BackfillProgress> {
    return backfillRows(this.runtime, options);
  }

  /**
   * Re-derives one row from every source instance it records, from version 1 up to each instance's
   * checkpoint (after `evolve` changed, say). It moves no checkpoint and writes no outbox message.
   * Resolves the row's checkpoints.
   */
  rebuild(key: KeyOfModel<M>, options: CallOptions = {}): Promise<Readonly<Record<string, number>>> {
    return rebuildRow(this.runtime, key, options.signal);
  }

  /** The rows parked by the `poison` policy, with why (a Scan of the model's table). */
  parkedRows(options: { signal?: AbortSignal | undefined } = {}): AsyncIterable<ParkedRow<Key>> {
    return listParked(this.runtime as RowRuntime<unknown>, options.signal);
  }

  /**
   * Read-your-writes: reads the row at `key` strongly consistent, with a growing backoff, until the
   * checkpoint it keeps for the source instance (`stream`, `streamId`) reflects at least `version` (an event
   * of that instance that feeds this row), and resolves it; out of time, as `Projection.waitFor`.
   *
   * @example
   * ```ts
   * const { version } = await OrderEvents.append({ orderId }, [{ type: 'OrderPlaced', data: { customer } }])
   * const { row } = await customers.waitFor({ customer }, { stream: OrderEvents, streamId: { orderId }, version })
   * ```
   */
  waitFor<S extends Streams[keyof Streams]>(
    key: Key,
    at: WaitForOptions & { readonly stream: S; readonly streamId: StreamIdOfStream<S> | string; readonly version: number },
  ): Promise<ProjectedRow<Stored<RowOfModel<M>>>> {
    const instance = instanceKey({ streamName: at.stream.name, streamId: at.stream.formatStreamId(at.streamId) });
    return waitForRow(this.runtime, { key, instance, version: at.version }, at);
  }

  /** Read-your-writes after an append: waits for every row `events` feed (see {@link MultiSourceProjection.waitFor}). */
  waitForEvents(events: ReadonlyArray<StreamEvent>, options: WaitForOptions = {}): Promise<ReadonlyArray<ProjectedRow<Stored<RowOfModel<M>>>>> {
    return waitForEvents(this.runtime, events, options);
  }

  /** Replays a parked row (or every parked row) from its checkpoints, as `Projection.retryParked` does. */
  retryParked(key?: KeyOfModel<M>): Promise<ReadonlyArray<MultiSourceRowOutcome<SourceEvents<Streams>, Key>>> {
    return retryParkedRows(this.runtime, key) as Promise<unknown> as Promise<ReadonlyArray<MultiSourceRowOutcome<SourceEvents<Streams>, Key>>>;
  }

  /** Skips a parked row's failing event on purpose (or `options.event`), then replays the rest. */
  async skipParked(
    key: KeyOfModel<M>,
    options: { event?: EventRef | undefined } = {},
  ): Promise<MultiSourceRowOutcome<SourceEvents<Streams>, Key> | undefined> {
    return (await replayParked(this.runtime, key, options.event ?? 'failing')) as MultiSourceRowOutcome<SourceEvents<Streams>, Key> | undefined;
  }
}
