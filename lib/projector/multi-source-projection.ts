import pLimit from 'p-limit';
import { ConfigurationError } from '../errors';
import { EventStream, ReadModel, type AnyEventStream, type StreamEvent } from '../store';
import { ProjectionDefaults } from './defaults';
import type { Evolved } from './fold-row';
import { applyMultiSourceRow, type MultiSourceRuntime } from './multi-source-row';
import { OutboxWriter, type OutboxOptions } from './outbox';
import type { ApplyResult, RowOutcome } from './outcome';
import type { AnyProjection } from './projection';
import { planRows, type Entry } from './row-plan';
import { readRows } from './row-store';
import type { EventsOfStream, RowOfModel, StreamIdOfStream } from './types';
import type { Backoff } from '../util/backoff';

type Key = Readonly<Record<string, unknown>>;

/** One source of a multi-source projection: a stream and the row each of its events feeds. */
export interface Source<S> {
  readonly stream: S;
  /** The row an event feeds (its key fields), or `undefined` to ignore the event. */
  readonly key: (streamId: StreamIdOfStream<S>, event: EventsOfStream<S>) => Key | undefined;
}

/** Each source of a projection, for the streams `Streams` (inferred from the `stream` of each source). */
export type Sources<Streams extends Record<string, AnyEventStream>> = { readonly [K in keyof Streams]: Source<Streams[K]> };

type SourceEvents<Streams> = { [K in keyof Streams]: EventsOfStream<Streams[K]> }[keyof Streams];

/** Options of {@link MultiSourceProjection}. */
export interface MultiSourceProjectionOptions<Streams extends Record<string, AnyEventStream>, M, State> {
  readonly name?: string;
  readonly readModel: M;
  /** The streams feeding the rows, by name. */
  readonly sources: Sources<Streams>;
  /** The state a row starts from, before `event`. */
  readonly initial: (key: Key, event: SourceEvents<Streams>) => State;
  /** The next state, `skipEvent` or `removeRow`. Events of one source instance come in version order; across instances the order is not defined. */
  readonly evolve: (state: State, event: SourceEvents<Streams>) => Evolved<State> | Promise<Evolved<State>>;
  readonly terminal?: (error: unknown) => boolean;
  readonly recreate?: (event: SourceEvents<Streams>) => boolean;
  readonly toItem?: (state: State, context: { readonly key: Key }) => RowOfModel<M>;
  readonly tombstoneTtl?: { readonly seconds: number; readonly attribute?: string };
  readonly outbox?: OutboxOptions<State, SourceEvents<Streams>>;
  /** @defaultValue 10 */
  readonly concurrency?: number;
  readonly retry?: { readonly attempts?: number; readonly backoff?: Backoff };
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
  implements AnyProjection
{
  readonly name: string;
  readonly readModel: M;
  readonly streams: ReadonlyArray<AnyEventStream>;
  /** Type-level only: the events this projection folds. */
  declare readonly $event: SourceEvents<Streams>;
  private readonly runtime: MultiSourceRuntime<State>;
  private readonly concurrency: number;
  private readonly keyOf: (event: StreamEvent) => Key | undefined;

  constructor(options: MultiSourceProjectionOptions<Streams, M, State>) {
    const { readModel } = options;
    if (!(readModel instanceof ReadModel)) throw new ConfigurationError('Expected `readModel` to be a ReadModel.');
    const sources = Object.values(options.sources ?? {}) as Array<Source<AnyEventStream>>;
    if (sources.length === 0) throw new ConfigurationError('A multi-source projection needs at least one source.');
    const byName = new Map<string, Source<AnyEventStream>>();
    for (const source of sources) {
      if (!(source.stream instanceof EventStream)) throw new ConfigurationError('Expected each source `stream` to be an EventStream.');
      if (typeof source.key !== 'function') throw new ConfigurationError(`Source ${source.stream.name}: expected \`key\` to be a function.`);
      if (byName.has(source.stream.name)) throw new ConfigurationError(`Two sources read stream ${source.stream.name}: give each stream one source.`);
      byName.set(source.stream.name, source);
    }
    this.name = options.name ?? `${[...byName.keys()].join('+')}→${readModel.name}`;
    this.readModel = readModel;
    this.streams = sources.map((source) => source.stream);
    this.concurrency = options.concurrency ?? ProjectionDefaults.concurrency;
    const attempts = options.retry?.attempts ?? ProjectionDefaults.retry.attempts;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new ConfigurationError(`Projection ${this.name}: expected \`concurrency\` to be a positive integer.`);
    if (!Number.isInteger(attempts) || attempts < 1) throw new ConfigurationError(`Projection ${this.name}: expected \`retry.attempts\` to be a positive integer.`);
    this.keyOf = (event) => {
      const source = byName.get(event.streamName);
      return source === undefined ? undefined : (source.key as (id: unknown, e: StreamEvent) => Key | undefined)(source.stream.parseStreamId(event.streamId), event);
    };
    const toItem = options.toItem as ((state: State, context: { key: Key }) => Record<string, unknown>) | undefined;
    const ttl = options.tombstoneTtl;
    this.runtime = {
      name: this.name,
      streamOf: (name) => (byName.get(name) as Source<AnyEventStream>).stream,
      store: { readModel, revision: true, ...(ttl === undefined ? {} : { tombstoneTtl: { seconds: ttl.seconds, attribute: ttl.attribute ?? 'ttl' } }) },
      rowIdOf: (event) => {
        const key = this.keyOf(event);
        return key === undefined ? undefined : JSON.stringify(readModel.keyOf(key));
      },
      initial: options.initial as MultiSourceRuntime<State>['initial'],
      evolve: options.evolve as MultiSourceRuntime<State>['evolve'],
      ...(options.terminal === undefined ? {} : { terminal: options.terminal }),
      ...(options.recreate === undefined ? {} : { recreate: options.recreate as (event: StreamEvent) => boolean }),
      ...(options.outbox === undefined ? {} : { outbox: new OutboxWriter(this.name, readModel, options.outbox as never) }),
      toItem: (state, context) => (toItem === undefined ? (state as Record<string, unknown>) : toItem(state, context)),
      retry: { attempts, backoff: options.retry?.backoff ?? ProjectionDefaults.retry.backoff },
    };
  }

  /** Applies decoded events of any source; never rejects for a row's error. */
  applyBatch(events: ReadonlyArray<SourceEvents<Streams>>): Promise<ApplyResult<SourceEvents<Streams>, Key>> {
    return this.applyEntries((events as ReadonlyArray<StreamEvent>).map((event, position) => ({ event, position }))) as Promise<ApplyResult<SourceEvents<Streams>, Key>>;
  }

  /** @internal */
  async applyEntries(entries: ReadonlyArray<Entry<StreamEvent>>): Promise<ApplyResult> {
    const names = new Set(this.streams.map((stream) => stream.name));
    const ours = entries.filter((entry) => names.has(entry.event.streamName));
    const plan = planRows(ours, this.keyOf, (key) => JSON.stringify(this.readModel.keyOf(key)));
    const groups = [...plan.rows.values()];
    const read = await readRows<State>(this.runtime.store, groups.map((group) => group.key)).catch(() => undefined); // on failure each row reads itself, and reports its own error
    const limit = pLimit(this.concurrency);
    const rows = await Promise.all(groups.map((group, index) => limit(() => applyMultiSourceRow(this.runtime, group, plan.inHand, read?.[index]))));
    const keyFailures = plan.keyFailures.map<RowOutcome>(({ entry, error }) => ({ status: 'failed', key: undefined, streamId: entry.event.streamId, error, positions: [entry.position] }));
    const foreign = entries.filter((entry) => !names.has(entry.event.streamName)).map((entry) => entry.position);
    return { outcomes: [...rows, ...keyFailures], ignored: [...plan.ignored, ...foreign].sort((a, b) => a - b) };
  }
}
