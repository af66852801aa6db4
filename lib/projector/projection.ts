import { ConfigurationError } from '../errors';
import { EventStream, commitsOf, instanceKey, type AnyEventStream, type ProjectedRow, type StreamEvent } from '../store';
import type { ReadModel, Stored } from '../read-model';
import { processBatch, type ProcessBatchOptions, type ProcessResult, type StreamRecordLike } from '../lambda';
import type { AppliedOutcome, ApplyResult, ParkedOutcome, RowOutcome } from '../outcome';
import { resolveCheckpoint } from './checkpoint-field';
import { singleSourceCheckpoints } from './checkpoints';
import type { Key } from './engine';
import { ProjectionBase } from './projection-base';
import { rebuildStream, type RebuildResult } from './rebuild';
import { waitForRow, type WaitForOptions } from './read-your-writes';
import type { AnyProjection, CallOptions, EventsOfStream, ProjectionOptions, RowOfModel, StreamIdOfStream } from './types';
export type { AnyProjection } from './types';

/** The result of a projection's own `processBatch`. */
export type ProjectionBatchResult<Event, R = StreamRecordLike> = Omit<
  ProcessResult<Record<'projection', AnyProjection>, Record<string, never>, R>,
  'outcomes' | 'ignored' | 'ignoredEvents' | 'unrouted'
> & {
  readonly outcomes: ReadonlyArray<RowOutcome<Event, Key>>;
  readonly ignored: ReadonlyArray<number>;
  readonly ignoredEvents: ReadonlyArray<Event>;
};

/**
 * Folds one stream's events into read-model rows exactly once per event and in version order, although
 * DynamoDB Streams delivers records out of order and at least once. A gap is filled by one strongly
 * consistent read of the stream, never by waiting for a delivery; each row is written once per call,
 * conditioned on the checkpoint it was read with. A row is fed by one stream instance.
 *
 * @example
 * ```ts
 * const summaries = new Projection({
 *   stream: OrderEvents, readModel: OrderSummaries,
 *   key: (id) => ({ orderId: id.orderId }),
 *   initial: (id) => ({ orderId: id.orderId, status: 'new', items: 0, version: 0 }),
 *   evolve: (state, event) => event.type === 'ItemAdded' ? { ...state, items: state.items + 1 } : state,
 *   checkpoint: 'version',
 * })
 * const { response } = await summaries.processBatch(event.Records, { source: 'lambda' })
 * ```
 */
export class Projection<
  S extends AnyEventStream = AnyEventStream,
  M extends ReadModel = ReadModel,
  State = Record<string, unknown>,
> extends ProjectionBase<M, State, EventsOfStream<S>, RowOutcome, RowOutcome<EventsOfStream<S>, Key>> {
  readonly stream: S;

  constructor(options: ProjectionOptions<S, M, State>) {
    const { stream, readModel } = options;
    if (!(stream instanceof EventStream)) throw new ConfigurationError('Expected `stream` to be an EventStream.');
    for (const fn of ['key', 'initial'] as const) {
      if (typeof options[fn] !== 'function')
        throw new ConfigurationError(`Projection ${options.name ?? stream.name}: expected \`${fn}\` to be a function.`);
    }
    const key = options.key as (streamId: Record<string, string>, event: StreamEvent) => Key | undefined;
    const initial = options.initial as (streamId: Record<string, string>, event: StreamEvent) => State;
    const toItem = options.toItem as ((state: State, context: { streamId: Record<string, string>; key: Key }) => Record<string, unknown>) | undefined;
    super(options, {
      defaultName: `${stream.name}->${(readModel as ReadModel | undefined)?.name}`,
      streams: [stream],
      keyOf: (event) => key(stream.parseStreamId(event.streamId), event),
      initial: (group, event) => initial(stream.parseStreamId(group.streamId), event),
      evolve: options.evolve,
      toItem: (state, group) =>
        toItem === undefined ? (state as Record<string, unknown>) : toItem(state, { streamId: stream.parseStreamId(group.streamId), key: group.key }),
      checkpoints: (name) => singleSourceCheckpoints(resolveCheckpoint(options.checkpoint, (readModel as ReadModel).schema, `Projection ${name}`)),
      revision: options.revision === true,
    });
    this.stream = stream;
  }

  /** The streams this projection folds: its one stream. */
  get streams(): ReadonlyArray<AnyEventStream> {
    return [this.stream];
  }

  /**
   * Applies decoded events: per row (concurrently across rows) sort and dedupe, read the row, fill any gap
   * with one read, fold, write once. Never rejects for a row's error: each row gets its own outcome.
   */
  applyBatch(events: ReadonlyArray<EventsOfStream<S>>, options: CallOptions = {}): Promise<ApplyResult<EventsOfStream<S>, Key>> {
    return this.applyListed(events, options) as Promise<ApplyResult<EventsOfStream<S>, Key>>;
  }

  /** Applies one event; rejects with the row's error. Resolves `undefined` for an event that addresses no row. */
  async apply(
    event: EventsOfStream<S>,
    options: CallOptions = {},
  ): Promise<AppliedOutcome<EventsOfStream<S>, Key> | ParkedOutcome<Key, EventsOfStream<S>> | undefined> {
    return (await this.applyOne(event, options)) as AppliedOutcome<EventsOfStream<S>, Key> | ParkedOutcome<Key, EventsOfStream<S>> | undefined;
  }

  /**
   * Decodes the INSERTs of this stream's events in raw stream records, applies them, and builds the partial
   * batch response: the earliest record of every failed row plus every record that failed to decode.
   */
  async processBatch<R>(
    records: ReadonlyArray<R>,
    options: Omit<ProcessBatchOptions<ReadonlyArray<AnyProjection>, Record<string, never>, R>, 'projections' | 'streams'> = {},
  ): Promise<ProjectionBatchResult<EventsOfStream<S>, R>> {
    // Under its name, as every transport reports it.
    const result = await processBatch(records, { ...options, projections: [this] });
    return {
      outcomes: result.outcomes[this.name] ?? [],
      ignored: result.ignored[this.name] ?? [],
      ignoredEvents: (result.ignoredEvents[this.name] ?? []) as ReadonlyArray<EventsOfStream<S>>,
      decodeFailures: result.decodeFailures,
      failedRecords: result.failedRecords,
      response: result.response,
    };
  }

  /**
   * Brings the row of the stream's latest event (that addresses a row) up to the head. Walks back from the
   * head a commit at a time (one strongly consistent Query each) to the newest event that addresses a row.
   */
  async catchUp(
    streamId: StreamIdOfStream<S> | string,
    options: CallOptions = {},
  ): Promise<AppliedOutcome<EventsOfStream<S>, Key> | ParkedOutcome<Key, EventsOfStream<S>> | undefined> {
    const id = this.stream.formatStreamId(streamId);
    for await (const commit of commitsOf(this.stream).commitsNewestFirst(id, options.signal)) {
      const latest = [...commit].reverse().find((event) => this.runtime.keyOf(event) !== undefined);
      if (latest !== undefined) return this.apply(latest as EventsOfStream<S>, options);
    }
    return undefined;
  }

  /**
   * Re-derives every row of the stream instance from version 1 up to the checkpoint it already has (after
   * `evolve` changed, say), ignoring the rows' state. It moves no checkpoint and writes no outbox message:
   * events past a row's checkpoint are applied by their delivery (or `catchUp`), in a call's `applied`.
   */
  async rebuild(streamId: StreamIdOfStream<S> | string, options: CallOptions = {}): Promise<RebuildResult> {
    // Async, so that a bad id rejects (as catchUp's does) instead of throwing at the call.
    return rebuildStream(this.runtime, this.stream, this.stream.formatStreamId(streamId), options.signal);
  }

  /**
   * Read-your-writes: reads the row at `key` strongly consistent, with a growing backoff, until its
   * checkpoint reflects at least stream version `version` (of `streamId`, when given; a row is fed by one
   * stream instance), and resolves it. `version` must be an event that addresses this row (the row's
   * checkpoint only moves with those). Out of time (`timeoutMs`), throws `ReadYourWritesTimeoutError`, or
   * with `onTimeout: 'stale'` resolves the row as it is with `fresh: false`.
   *
   * @example
   * ```ts
   * const { version } = await OrderEvents.append({ orderId }, [{ type: 'ItemAdded', data }])
   * const { row } = await summaries.waitFor({ orderId }, { version, timeoutMs: 2000 })
   * ```
   */
  waitFor(
    key: Key,
    at: WaitForOptions & { readonly version: number; readonly streamId?: StreamIdOfStream<S> | string | undefined },
  ): Promise<ProjectedRow<Stored<RowOfModel<M>>>> {
    const instance =
      at.streamId === undefined ? undefined : instanceKey({ streamName: this.stream.name, streamId: this.stream.formatStreamId(at.streamId) });
    return waitForRow(this.runtime, { key, instance, version: at.version }, at);
  }
}
