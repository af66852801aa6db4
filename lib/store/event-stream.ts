import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DecodeError } from '../errors';
import type { SubjectKeys } from '../erasure';
import { warnDeprecated } from '../util';
import { append, type AppendOptions, type AppendResult, type SentinelTtl } from './append';
import type { NewEventOf } from './codec';
import { execute, type CommandOptions, type CommandResult } from './execute';
import type { EventStreamOptions } from './event-stream-options';
import { load, type Decider, type LoadOptions, type Loaded } from './load';
import { instances, iterate, read, streamVersion } from './read';
import { loadSnapshot, saveSnapshot } from './snapshots';
import { defineAs, defineStream, formatStreamId, parseStreamId, type StreamDefinition } from './stream-definition';
import type { EventOf, EventSchemas, ReadRange, Snapshot, StreamEvent, StreamIdOf } from './types';

export type { AppendOptions, AppendRetry } from './append';
export type { EventStreamOptions } from './event-stream-options';

/**
 * A typed event stream stored in a DynamoDB table: contiguous versions, optimistic appends of one item
 * each (a commit: a conditional PutItem, or a transaction beside an idempotency key or inline rows),
 * strongly consistent reads, snapshots and a command helper.
 *
 * @example
 * ```ts
 * const OrderEvents = new EventStream({
 *   client, table: 'events', name: 'Order', streamId: ['orderId'],
 *   events: { OrderPlaced: z.object({ customer: z.string() }), OrderShipped: z.object({}) },
 * })
 * await OrderEvents.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }], { expectedVersion: 0 })
 * const events = await OrderEvents.read({ orderId: 'o-1' })
 * ```
 */
export class EventStream<
  const Name extends string = string,
  const Fields extends ReadonlyArray<string> = ReadonlyArray<string>,
  Events extends EventSchemas = EventSchemas,
> {
  // A definition, and actions over it (lib/store/append, read, load, execute, snapshots): each method
  // below hands the definition to its action, which reads and writes through the definition's commit layer.
  private readonly definition: StreamDefinition;
  readonly name: Name;
  readonly table: string;
  readonly streamIdFields: Fields;
  readonly events: Events;
  /** Type-level only (no runtime value): the stream's event, new-event and id types, for inference. */
  declare readonly $types: { readonly event: EventOf<Events>; readonly newEvent: NewEventOf<Events>; readonly streamId: StreamIdOf<Fields> };
  /** The DynamoDB client it was given (never destroyed here). */
  readonly client: DynamoDBClient;
  /** How long idempotency sentinels live (`idempotencyTtl` resolved), if they expire. */
  readonly sentinelTtl: SentinelTtl | undefined;
  /** Whether each event of an append is an item of its own (see `EventStreamOptions.itemPerEvent`). */
  readonly itemPerEvent: boolean;
  /** Whether appends store their span's trace context (see `EventStreamOptions.traceContext`). */
  readonly storesTraceContext: boolean;
  /**
   * Whether folds (loads, projections) pass over an event: one of a type retired with
   * `retiredEvent({ skip: true })`; reads still return it. Absent when no type is, so folds ask nothing.
   */
  readonly skipsInFolds: ((event: { readonly type: string }) => boolean) | undefined;
  /** The key store of the stream's personal data (`personalData.keys`), if it declares any. */
  readonly subjectKeys: SubjectKeys | undefined;

  constructor(options: EventStreamOptions<Name, Fields, Events>) {
    this.definition = defineStream(options);
    defineAs(this, this.definition);
    this.name = options.name;
    this.table = options.table;
    this.client = options.client;
    this.streamIdFields = options.streamId;
    this.events = options.events;
    this.sentinelTtl = this.definition.sentinelTtl;
    this.itemPerEvent = this.definition.itemPerEvent;
    this.storesTraceContext = this.definition.storesTraceContext;
    this.skipsInFolds = this.definition.skipsInFolds;
    this.subjectKeys = this.definition.subjectKeys;
  }

  /** The string form of a stream id: its composite values joined with `#`. */
  formatStreamId(id: StreamIdOf<Fields> | string): string {
    return formatStreamId(this.definition, id);
  }

  /** The structured form of a stream id's string form. A multi-field id with a `#` in a value is ambiguous: `ValidationError`. */
  parseStreamId(streamId: string): StreamIdOf<Fields> {
    return parseStreamId(this.definition, streamId) as StreamIdOf<Fields>;
  }

  /**
   * Appends events as one item, a commit, once the version before them is known to end a commit: one
   * conditional PutItem, or ONE TransactWriteItems with an `idempotencyKey`, `inline` rows, or events too
   * large together for one item (then cut into several commits). With `expectedVersion` (read first when
   * ≥ 1 and not the version this stream last saw end a commit, see `rememberedVersions`: an eventually
   * consistent Query of one item, strongly consistent if that does not find it), a stream at another
   * version fails with `ConcurrencyError` (expected and actual version) and nothing is written; without
   * it the events go at the head (read first), retried on conflict. With
   * `idempotencyKey`, a repeated append returns the first result.
   */
  async append(
    id: StreamIdOf<Fields> | string,
    events: ReadonlyArray<NewEventOf<Events>>,
    options: AppendOptions = {},
  ): Promise<AppendResult<EventOf<Events>>> {
    return append(this.definition, id, events, options) as Promise<AppendResult<EventOf<Events>>>;
  }

  /** The stream instance's current version (0 when it has no events), strongly consistent. */
  async version(id: StreamIdOf<Fields> | string, options: { signal?: AbortSignal | undefined } = {}): Promise<number> {
    return streamVersion(this.definition, id, options);
  }

  /** Events of a stream instance in version order, paged, strongly consistent: from `fromVersion` (default 1) to `toVersion` (default the head). */
  async *iterate(id: StreamIdOf<Fields> | string, range: ReadRange = {}): AsyncGenerator<EventOf<Events>> {
    yield* iterate(this.definition, id, range) as AsyncGenerator<EventOf<Events>>;
  }

  /** All events of a range (see {@link EventStream.iterate}) in an array. */
  async read(id: StreamIdOf<Fields> | string, range: ReadRange = {}): Promise<EventOf<Events>[]> {
    return read(this.definition, id, range) as Promise<EventOf<Events>[]>;
  }

  /** The events after `afterVersion`, up to `toVersion` (default the head). */
  async readFrom(id: StreamIdOf<Fields> | string, afterVersion: number, options: Omit<ReadRange, 'fromVersion'> = {}): Promise<EventOf<Events>[]> {
    return this.read(id, { fromVersion: afterVersion + 1, ...options });
  }

  /**
   * The id of every instance of this stream, in no particular order, listed by a parallel Scan of the
   * events table (`segments` at once). Only what identifies an instance comes back, yet the Scan reads the
   * whole table: see the README for its cost. Memory stays bounded: ids stream through a page at a time.
   */
  instances(options: { segments?: number | undefined; signal?: AbortSignal | undefined } = {}): AsyncIterable<string> {
    return instances(this.definition, options);
  }

  /**
   * Decodes a stored commit of this stream (an item, unmarshalled) into its events, in version order:
   * one for an append of one event (and for every item written before commits held several), all of an
   * append's otherwise. Throws `DecodeError` for a broken item.
   */
  decodeCommit(item: Readonly<Record<string, unknown>>): EventOf<Events>[] {
    return this.definition.commits.decode(item) as EventOf<Events>[];
  }

  /**
   * Decodes a stored item that holds one event.
   * @deprecated use {@link EventStream.decodeCommit}: an item holds an append's events. A commit of several
   * is a `DecodeError` here (never a part of it). Goes in the next minor version.
   */
  decodeItem(item: Readonly<Record<string, unknown>>): EventOf<Events> {
    warnDeprecated(undefined, 'EventStream.decodeItem', 'EventStream.decodeCommit');
    const events = this.decodeCommit(item);
    const [only] = events;
    if (events.length === 1 && only !== undefined) return only;
    throw new DecodeError(
      `The item holds ${events.length} events of stream ${this.name} (an append's commit): decode it with decodeCommit, which returns them all.`,
      this.name,
    );
  }

  /**
   * Saves a snapshot unless a newer one exists; resolves whether it was written (by this call: a retry
   * that finds the item its lost try wrote counts as written). On a stream with personal
   * data, the state is sealed for every subject whose data the events up to `snapshot.version` hold in
   * the clear (a forget of any of them makes it unreadable: loads then fold from the events); a load that
   * saves one knows them, a call of this method reads the events to find them.
   */
  async saveSnapshot<State>(
    id: StreamIdOf<Fields> | string,
    snapshot: Snapshot<State>,
    name?: string,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<boolean> {
    return saveSnapshot(this.definition, this.formatStreamId(id), snapshot, name, { signal: options.signal });
  }

  /** The latest snapshot under `name`, if any; strongly consistent unless `consistent` is false. */
  async loadSnapshot<State>(
    id: StreamIdOf<Fields> | string,
    name?: string,
    options: { signal?: AbortSignal | undefined; consistent?: boolean | undefined } = {},
  ): Promise<Snapshot<State> | undefined> {
    const reading = { consistent: options.consistent ?? true, signal: options.signal };
    return loadSnapshot(this.definition, this.formatStreamId(id), name, reading) as Promise<Snapshot<State> | undefined>;
  }

  /** Folds the stream instance from its latest snapshot (if `snapshot` is given) plus the newer events. */
  async load<State>(
    id: StreamIdOf<Fields> | string,
    fold: Decider<State, EventOf<Events>, NewEventOf<Events>> | Omit<Decider<State, EventOf<Events>, NewEventOf<Events>>, 'decide'>,
    options: LoadOptions<State> = {},
  ): Promise<Loaded<State>> {
    return load(this.definition, id, fold as Pick<Decider<State, StreamEvent, unknown>, 'initial' | 'evolve'>, options);
  }

  /**
   * Runs a command: load → decide → append with `expectedVersion`, retrying on `ConcurrencyError` a bounded
   * number of times. `decide` may throw a domain error, which is passed through unretried.
   */
  async execute<State>(
    id: StreamIdOf<Fields> | string,
    decider: Decider<State, EventOf<Events>, NewEventOf<Events>>,
    options: CommandOptions<State> = {},
  ): Promise<CommandResult<State, EventOf<Events>>> {
    return execute(this.definition, id, decider as Decider<State, StreamEvent, unknown>, options) as Promise<CommandResult<State, EventOf<Events>>>;
  }
}
