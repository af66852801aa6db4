import pLimit from 'p-limit';
import { ConfigurationError, DynafoldError } from '../errors';
import { EventStream, ReadModel, type AnyEventStream, type StreamEvent } from '../store';
import { applyRow, type RowRuntime } from './apply-row';
import { OutboxWriter } from './outbox';
import { readRows, type RowStore } from './row-store';
import { resolveCheckpoint } from './checkpoint';
import { ProjectionDefaults } from './defaults';
import type { AppliedOutcome, ApplyResult, RowOutcome } from './outcome';
import { processBatch, type ProcessBatchOptions, type ProcessResult } from './process-batch';
import type { StreamRecordLike } from './records';
import { rebuildStream, type RebuildResult } from './rebuild';
import { planRows, type Entry } from './row-plan';
import type { EventsOfStream, ProjectionOptions, StreamIdOfStream } from './types';

type Key = Readonly<Record<string, unknown>>;

/** What routing a batch needs of a projection, whatever its types. */
export interface AnyProjection {
  readonly name: string;
  /** The streams whose events the projection folds. */
  readonly streams: ReadonlyArray<AnyEventStream>;
  /** @internal */
  applyEntries(entries: ReadonlyArray<Entry<StreamEvent>>): Promise<ApplyResult>;
}

/** The result of a projection's own `processBatch`. */
export type ProjectionBatchResult<Event, R = StreamRecordLike> = Omit<ProcessResult<Record<'projection', AnyProjection>, Record<string, never>, R>, 'outcomes' | 'ignored' | 'unrouted'> & {
  readonly outcomes: ReadonlyArray<RowOutcome<Event, Key>>;
  readonly ignored: ReadonlyArray<number>;
};

/**
 * Folds one stream's events into read-model rows exactly once per event and in version order, although
 * DynamoDB Streams delivers records out of order and at least once. A gap is filled by one strongly
 * consistent read of the stream, never by waiting for a delivery; each row is written once per call,
 * conditioned on the checkpoint it was read with.
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
export class Projection<S extends AnyEventStream = AnyEventStream, M extends ReadModel = ReadModel, State = Record<string, unknown>> implements AnyProjection {
  readonly name: string;
  readonly stream: S;
  readonly readModel: M;
  /** @internal */
  readonly runtime: RowRuntime<State>;
  private readonly concurrency: number;
  private readonly keyOf: (event: StreamEvent) => Key | undefined;

  constructor(options: ProjectionOptions<S, M, State>) {
    const { stream, readModel } = options;
    if (!(stream instanceof EventStream)) throw new ConfigurationError('Expected `stream` to be an EventStream.');
    if (!(readModel instanceof ReadModel)) throw new ConfigurationError('Expected `readModel` to be a ReadModel.');
    this.name = options.name ?? `${stream.name}→${readModel.name}`;
    for (const fn of ['key', 'initial', 'evolve'] as const) {
      if (typeof options[fn] !== 'function') throw new ConfigurationError(`Projection ${this.name}: expected \`${fn}\` to be a function.`);
    }
    this.concurrency = options.concurrency ?? ProjectionDefaults.concurrency;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new ConfigurationError(`Projection ${this.name}: expected \`concurrency\` to be a positive integer.`);
    const attempts = options.retry?.attempts ?? ProjectionDefaults.retry.attempts;
    if (!Number.isInteger(attempts) || attempts < 1) throw new ConfigurationError(`Projection ${this.name}: expected \`retry.attempts\` to be a positive integer.`);
    this.stream = stream;
    this.readModel = readModel;
    const keyFn = options.key as (streamId: Record<string, string>, event: StreamEvent) => Key | undefined;
    this.keyOf = (event) => keyFn(stream.parseStreamId(event.streamId), event);
    const toItem = options.toItem as RowRuntime<State>['toItem'] | undefined;
    const outbox = options.outbox === undefined ? undefined : new OutboxWriter(this.name, readModel, options.outbox as never);
    this.runtime = {
      name: this.name,
      stream,
      store: resolveRowStore(this.name, readModel, options, outbox !== undefined),
      rowIdOf: (event) => {
        const key = this.keyOf(event);
        return key === undefined ? undefined : this.rowId(key);
      },
      initial: options.initial as RowRuntime<State>['initial'],
      evolve: options.evolve as RowRuntime<State>['evolve'],
      ...(options.terminal === undefined ? {} : { terminal: options.terminal }),
      ...(options.recreate === undefined ? {} : { recreate: options.recreate as (event: StreamEvent) => boolean }),
      ...(outbox === undefined ? {} : { outbox }),
      toItem: toItem ?? ((state) => state as Record<string, unknown>),
      retry: { attempts, backoff: options.retry?.backoff ?? ProjectionDefaults.retry.backoff },
    };
  }

  /** The streams this projection folds: its one stream. */
  get streams(): ReadonlyArray<AnyEventStream> {
    return [this.stream];
  }

  private rowId(key: Key): string {
    return JSON.stringify(this.readModel.keyOf(key));
  }

  /**
   * Applies decoded events: per row (concurrently across rows) sort and dedupe, read the row, fill any gap
   * with one read, fold, write once. Never rejects for a row's error: each row gets its own outcome.
   */
  applyBatch(events: ReadonlyArray<EventsOfStream<S>>): Promise<ApplyResult<EventsOfStream<S>, Key>> {
    return this.applyEntries(events.map((event, position) => ({ event, position }))) as Promise<ApplyResult<EventsOfStream<S>, Key>>;
  }

  /** Applies one event; rejects with the row's error. Resolves `undefined` for an event that addresses no row. */
  async apply(event: EventsOfStream<S>): Promise<AppliedOutcome<EventsOfStream<S>, Key> | undefined> {
    const { outcomes } = await this.applyBatch([event]);
    const outcome = outcomes[0];
    if (outcome === undefined) return undefined;
    if (outcome.status === 'failed') throw outcome.error;
    return outcome;
  }

  /** @internal applies events at given positions (records' positions, for processBatch). */
  async applyEntries(entries: ReadonlyArray<Entry<StreamEvent>>): Promise<ApplyResult> {
    const ours = entries.filter((entry) => entry.event.streamName === this.stream.name);
    const foreign = entries.filter((entry) => entry.event.streamName !== this.stream.name).map((entry) => entry.position);
    const plan = planRows(ours, this.keyOf, (key) => this.rowId(key));
    const limit = pLimit(this.concurrency);
    const groups = [...plan.rows.values()];
    // All rows of the call in as few reads as DynamoDB allows; a lost race re-reads its one row.
    const read = await readRows<State>(this.runtime.store, groups.map((group) => group.key)).catch(() => undefined); // on failure each row reads itself, and reports its own error
    const rows = await Promise.all(
      groups.map((group, index) =>
        group.events.some((event) => event.streamId !== group.streamId)
          ? Promise.resolve<RowOutcome>({
              status: 'failed',
              key: group.key,
              streamId: group.streamId,
              positions: group.positions,
              error: new DynafoldError(
                'projector.multipleSources',
                `Projection ${this.name}: row ${JSON.stringify(group.key)} is addressed by several stream instances; a row of a projection is fed by one.`,
              ),
            })
          : limit(() => applyRow(this.runtime, group, plan.inHand, read?.[index])),
      ),
    );
    const keyFailures = plan.keyFailures.map<RowOutcome>(({ entry, error }) => ({
      status: 'failed',
      key: undefined,
      streamId: entry.event.streamId,
      error,
      positions: [entry.position],
    }));
    return { outcomes: [...rows, ...keyFailures], ignored: [...plan.ignored, ...foreign].sort((a, b) => a - b) };
  }

  /**
   * Decodes the INSERTs of this stream's events in raw stream records, applies them, and builds the partial
   * batch response: the earliest record of every failed row plus every record that failed to decode.
   */
  async processBatch<R>(records: ReadonlyArray<R>, options: Omit<ProcessBatchOptions<Record<'projection', AnyProjection>, Record<string, never>, R>, 'projections' | 'streams'> = {}): Promise<ProjectionBatchResult<EventsOfStream<S>, R>> {
    const result = await processBatch(records, { ...options, projections: { projection: this as AnyProjection } });
    return {
      outcomes: result.outcomes.projection as ReadonlyArray<RowOutcome<EventsOfStream<S>, Key>>,
      ignored: result.ignored.projection,
      decodeFailures: result.decodeFailures,
      failedRecords: result.failedRecords,
      response: result.response,
    };
  }

  /** Brings the row of the stream's latest event (that addresses a row) up to the head. */
  async catchUp(streamId: StreamIdOfStream<S> | string): Promise<AppliedOutcome<EventsOfStream<S>, Key> | undefined> {
    const id = this.stream.formatStreamId(streamId);
    for (let version = await this.stream.version(id); version > 0; version--) {
      const [event] = await this.stream.read(id, { fromVersion: version, toVersion: version });
      if (event !== undefined && this.keyOf(event) !== undefined) return this.apply(event as EventsOfStream<S>);
    }
    return undefined;
  }

  /** Re-derives every row of the stream instance from version 1, ignoring their state. Replays no side effects: returns no events. */
  rebuild(streamId: StreamIdOfStream<S> | string): Promise<RebuildResult> {
    return rebuildStream(this.runtime, this.stream.formatStreamId(streamId), this.keyOf, (key) => this.rowId(key));
  }
}

function resolveRowStore(
  name: string,
  readModel: ReadModel,
  options: Pick<ProjectionOptions<unknown, unknown, unknown>, 'tombstoneTtl' | 'checkpoint' | 'revision'>,
  outbox: boolean,
): RowStore {
  const ttl = options.tombstoneTtl;
  if (ttl !== undefined && (!Number.isInteger(ttl.seconds) || ttl.seconds < 1)) {
    throw new ConfigurationError(`Projection ${name}: expected \`tombstoneTtl.seconds\` to be a positive integer.`);
  }
  return {
    readModel,
    checkpoint: resolveCheckpoint(options.checkpoint, readModel.schema, `Projection ${name}`),
    // The outbox orders a row's messages by revision, so it needs one.
    revision: options.revision === true || outbox,
    ...(ttl === undefined ? {} : { tombstoneTtl: { seconds: ttl.seconds, attribute: ttl.attribute ?? 'ttl' } }),
  };
}
