import { ConfigurationError } from '../errors';
import { EventStream, instanceKey, type AnyEventStream, type ProjectedRow, type StreamEvent } from '../store';
import type { KeyOfModel, ReadModel, Stored } from '../read-model';
import type { ApplyResult, MultiSourceRowOutcome } from '../outcome';
import { multiSourceCheckpoints } from './checkpoints';
import type { Evolved, Key } from './engine';
import type { CommonProjectionOptions } from './runtime';
import { ProjectionBase } from './projection-base';
import type { CallOptions, EventsOfStream, RowOfModel, StreamIdOfStream } from './types';
import { rebuildRow } from './rebuild';
import { waitForRow, type WaitForOptions } from './read-your-writes';

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
export class MultiSourceProjection<
  Streams extends Record<string, AnyEventStream>,
  M extends ReadModel = ReadModel,
  State = Record<string, unknown>,
> extends ProjectionBase<M, State, SourceEvents<Streams>, MultiSourceRowOutcome, MultiSourceRowOutcome<SourceEvents<Streams>, Key>> {
  readonly streams: ReadonlyArray<AnyEventStream>;
  /** Type-level only: the events this projection folds. */
  declare readonly $event: SourceEvents<Streams>;

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
    super(options, {
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
      checkpoints: () => multiSourceCheckpoints(),
      revision: true,
    });
    this.streams = sources.map((source) => source.stream);
  }

  /** Applies decoded events of any source; never rejects for a row's error. */
  applyBatch(
    events: ReadonlyArray<SourceEvents<Streams>>,
    options: CallOptions = {},
  ): Promise<ApplyResult<SourceEvents<Streams>, Key, MultiSourceRowOutcome<SourceEvents<Streams>, Key>>> {
    return this.applyListed(events, options) as Promise<ApplyResult<SourceEvents<Streams>, Key, MultiSourceRowOutcome<SourceEvents<Streams>, Key>>>;
  }

  /**
   * Re-derives one row from every source instance it records, from version 1 up to each instance's
   * checkpoint (after `evolve` changed, say). It moves no checkpoint and writes no outbox message.
   * Resolves the row's checkpoints.
   */
  rebuild(key: KeyOfModel<M>, options: CallOptions = {}): Promise<Readonly<Record<string, number>>> {
    return rebuildRow(this.runtime, key, options.signal);
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
}
