import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConcurrencyError, DecodeError, ValidationError } from '../errors';
import { merge, requireInteger, warnDeprecated } from '../util';
import {
  loadState,
  readConsistency,
  type LoadRange,
  DEFAULT_SNAPSHOT_NAME,
  loadLegacySnapshot,
  loadSnapshot,
  saveSnapshot,
  type Snapshot,
  readEvents,
  readHead,
  readCommitsNewestFirst,
  readSnapshotPage,
  type SnapshotPage,
  instancePages,
} from './read';
import { executeCommand, type CommandOptions, type CommandResult, type Decider, type LoadOptions, type Loaded, type LostRace } from './command';
import { joinComposite, splitComposite, eventCodec, type EventCodec, fromCommitItem } from './codec';
import { assertKeyLength, documentClient, withSignal } from '../dynamo';
import { EventStreamDefaults } from './defaults';
import { MAX_VERSION, partitionKeyOf } from './layout';
import { KnownCommitEnds, type SentinelTtl } from './append';
import { StreamAppends } from './stream-appends';
import { waitForProjections } from './read-your-writes';
import type { EventOf, EventSchemas, ReadRange, StreamIdOf } from './types';
import type { NewEventOf } from './codec';
import type { AppendResult } from './stream-appends';
import { resolveIdempotencyTtl, validateStreamOptions, type AppendOptions, type EventStreamOptions } from './event-stream-options';
import { TrailCollector, resolvePersonalData, type SubjectKeys, type Trail } from './erasure';
import { Attr, inSpan, streamSpan, withCapacity } from '../telemetry';

export type { AppendOptions, AppendRetry, EventStreamOptions } from './event-stream-options';

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
  readonly name: Name;
  readonly table: string;
  readonly streamIdFields: Fields;
  readonly events: Events;
  /** Type-level only (no runtime value): the stream's event, new-event and id types, for inference. */
  declare readonly $types: { readonly event: EventOf<Events>; readonly newEvent: NewEventOf<Events>; readonly streamId: StreamIdOf<Fields> };
  /** The DynamoDB client it was given (never destroyed here). */
  readonly client: DynamoDBClient;
  /** @internal */
  readonly codec: EventCodec;
  /**
   * @internal the document client, for scans that serve every stream of a table at once; every request
   * of the stream goes through it, and tells the span of the operation that sends it what it consumed
   */
  readonly documents: DynamoDBDocumentClient;
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
  /** @internal The last version seen to end a commit, per recently used instance (see `rememberedVersions`). */
  readonly commitEnds: KnownCommitEnds;
  private readonly appends: StreamAppends = new StreamAppends(this);

  constructor(options: EventStreamOptions<Name, Fields, Events>) {
    validateStreamOptions(options);
    this.name = options.name;
    this.table = options.table;
    this.client = options.client;
    this.streamIdFields = options.streamId;
    this.events = options.events;
    const compression = options.compression ?? EventStreamDefaults.compression;
    const codec = eventCodec(
      options.name,
      options.events,
      compression === false
        ? false
        : {
            algorithm: compression.algorithm ?? EventStreamDefaults.compression.algorithm,
            thresholdBytes: compression.thresholdBytes ?? EventStreamDefaults.compression.thresholdBytes,
          },
      options.versions,
    );
    const personal =
      options.personalData === undefined
        ? undefined
        : resolvePersonalData(
            { name: options.name, streamIdFields: options.streamId, events: options.events, types: codec.types },
            options.personalData,
          );
    this.codec = personal === undefined ? codec : { ...codec, personal };
    this.subjectKeys = personal?.keys;
    const types = this.codec.types;
    this.skipsInFolds = [...types.values()].some((reading) => reading.retired?.skip === true)
      ? (event) => types.get(event.type)?.retired?.skip === true
      : undefined;
    this.documents = withCapacity(documentClient(options.client));
    this.sentinelTtl = options.idempotencyTtl === undefined ? undefined : resolveIdempotencyTtl(options.idempotencyTtl, options.name);
    this.itemPerEvent = options.itemPerEvent ?? EventStreamDefaults.itemPerEvent;
    this.storesTraceContext = options.traceContext ?? EventStreamDefaults.traceContext;
    this.commitEnds = new KnownCommitEnds(options.rememberedVersions ?? EventStreamDefaults.rememberedVersions);
  }

  /** The string form of a stream id: its composite values joined with `#`. */
  formatStreamId(id: StreamIdOf<Fields> | string): string {
    if (typeof id !== 'string' && (typeof id !== 'object' || id === null))
      throw new ValidationError(`Stream id of ${this.name} must be an object with ${this.streamIdFields.join(', ')}.`);
    const joined = joinComposite(`Stream id of ${this.name}`, this.streamIdFields, typeof id === 'string' ? this.parseStreamId(id) : id);
    assertKeyLength(`Stream id of ${this.name}`, partitionKeyOf(this.name, joined), 'partition');
    return joined;
  }

  /** The structured form of a stream id's string form. A multi-field id with a `#` in a value is ambiguous: `ValidationError`. */
  parseStreamId(streamId: string): StreamIdOf<Fields> {
    return splitComposite(`Stream id of ${this.name}`, this.streamIdFields, streamId) as StreamIdOf<Fields>;
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
    const { waitFor, ...write } = options;
    if (waitFor !== undefined) {
      const result = await this.append(id, events, write);
      return { ...result, projected: await waitForProjections(result.events, waitFor, options.signal) };
    }
    const counts = { [Attr.eventCount]: Array.isArray(events) ? events.length : undefined, [Attr.expectedVersion]: options.expectedVersion };
    return inSpan(streamSpan('append', this, counts), async (span) => {
      // Named before anything can fail, so that a failed append's span says which stream it failed on.
      const streamId = this.formatStreamId(id);
      span.set({ [Attr.streamId]: streamId });
      const result = await this.appendOnce(streamId, events, options);
      span.set({ [Attr.version]: result.version });
      return result;
    });
  }

  private async appendOnce(
    streamId: string,
    events: ReadonlyArray<NewEventOf<Events>>,
    options: AppendOptions,
  ): Promise<AppendResult<EventOf<Events>>> {
    const valid = this.appends.validate(events, options);
    const { signal } = options;
    // A version past the last a stream can hold (an ETag of 11 digits, say) is stale, not invalid: no
    // stream is there, so this is the conflict a transaction would find. Only a stream that really is at
    // `expectedVersion` is refused for running out of versions (by planItems).
    if (options.expectedVersion !== undefined && options.expectedVersion + valid.length > MAX_VERSION) {
      const actual = await this.version(streamId, { signal });
      if (actual !== options.expectedVersion) throw new ConcurrencyError(this.name, streamId, options.expectedVersion, actual);
    }
    const outcome = await this.appends.append(streamId, valid, options, options.expectedVersion === undefined ? 'head' : 'expected');
    if ('version' in outcome) return outcome as AppendResult<EventOf<Events>>;
    throw new ConcurrencyError(this.name, streamId, options.expectedVersion ?? 0, await this.version(streamId, { signal }));
  }

  /**
   * @internal `execute`'s append, at the version its load read: a lost race is answered, not thrown, with
   * the commit that won (its events) when DynamoDB returned it, so the command can decide again without reading.
   */
  async appendAfterLoad(
    streamId: string,
    events: ReadonlyArray<NewEventOf<Events>>,
    options: AppendOptions & { readonly expectedVersion: number },
  ): Promise<AppendResult<EventOf<Events>> | LostRace<EventOf<Events>>> {
    const attributes = { [Attr.streamId]: streamId, [Attr.eventCount]: events.length, [Attr.expectedVersion]: options.expectedVersion };
    return inSpan(streamSpan('append', this, attributes), async (span) => {
      const appended = await this.appendLoaded(streamId, events, options);
      // The try that won says the version it appended at; a lost one, none (the command's retry event names the winner's).
      if ('version' in appended) span.set({ [Attr.version]: appended.version });
      return appended;
    });
  }

  private async appendLoaded(
    streamId: string,
    events: ReadonlyArray<NewEventOf<Events>>,
    options: AppendOptions & { readonly expectedVersion: number },
  ): Promise<AppendResult<EventOf<Events>> | LostRace<EventOf<Events>>> {
    const outcome = await this.appends.append(streamId, this.appends.validate(events, options), options, 'loaded');
    if ('version' in outcome) return outcome as AppendResult<EventOf<Events>>;
    const winner =
      outcome.winner === undefined ? undefined : ((await this.appends.decodeWinner(outcome.winner, options.signal)) as EventOf<Events>[] | undefined);
    return { lostRace: true, actualVersion: winner?.at(-1)?.version ?? options.expectedVersion + 1, ...(winner === undefined ? {} : { winner }) };
  }

  /** The stream instance's current version (0 when it has no events), strongly consistent. */
  async version(id: StreamIdOf<Fields> | string, options: { signal?: AbortSignal | undefined } = {}): Promise<number> {
    const streamId = this.formatStreamId(id);
    const head = await readHead(withSignal(this.documents, options.signal), this.table, this.codec, streamId);
    this.commitEnds.remember(streamId, head);
    return head;
  }

  /** Events of a stream instance in version order, paged, strongly consistent: from `fromVersion` (default 1) to `toVersion` (default the head). */
  async *iterate(id: StreamIdOf<Fields> | string, range: ReadRange = {}): AsyncGenerator<EventOf<Events>> {
    const streamId = this.formatStreamId(id);
    const fromVersion = range.fromVersion ?? 1;
    const toVersion = Math.min(range.toVersion ?? MAX_VERSION, MAX_VERSION);
    for (const [name, value] of [
      ['fromVersion', fromVersion],
      ['toVersion', toVersion],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new ValidationError(`Expected \`${name}\` to be an integer ≥ 0, got ${String(value)}.`, [
          { path: [name], message: 'not an integer ≥ 0' },
        ]);
      }
    }
    yield* readEvents(
      withSignal(this.documents, range.signal),
      this.table,
      this.codec,
      streamId,
      { fromVersion, toVersion },
      { pageSize: EventStreamDefaults.readPageSize, consistent: true, afterCommitEnd: false },
    ) as AsyncGenerator<EventOf<Events>>;
  }

  /** All events of a range (see {@link EventStream.iterate}) in an array. */
  async read(id: StreamIdOf<Fields> | string, range: ReadRange = {}): Promise<EventOf<Events>[]> {
    const events: EventOf<Events>[] = [];
    for await (const event of this.iterate(id, range)) events.push(event);
    return events;
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
    const segments = requireInteger('segments', options.segments ?? EventStreamDefaults.instanceSegments, 1, 1_000_000, `${this.name}.instances`);
    const scan = { documents: this.documents, table: this.table, streamNames: [this.name], segments, signal: options.signal };
    const pagesOf = (segment: number) => instancePages({ ...scan, segment });
    return (async function* () {
      for await (const page of merge(Array.from({ length: segments }, (_unused, segment) => pagesOf(segment)))) {
        for (const instance of page.instances) yield instance.streamId;
      }
    })();
  }

  /**
   * Decodes a stored commit of this stream (an item, unmarshalled) into its events, in version order:
   * one for an append of one event (and for every item written before commits held several), all of an
   * append's otherwise. Throws `DecodeError` for a broken item.
   */
  decodeCommit(item: Readonly<Record<string, unknown>>): EventOf<Events>[] {
    return fromCommitItem(this.codec, item) as EventOf<Events>[];
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
    options: {
      signal?: AbortSignal | undefined;
      /** @internal the subjects whose data the state holds, as a load gathered them */
      trail?: Trail | undefined;
      /** @internal the snapshot stored was sealed for a forgotten subject: replace it at the same version (see `SnapshotSave`) */
      replacesForgotten?: boolean | undefined;
    } = {},
  ): Promise<boolean> {
    const streamId = this.formatStreamId(id);
    let trail = options.trail;
    if (trail === undefined && this.codec.personal !== undefined && Number.isSafeInteger(snapshot?.version) && snapshot.version > 0) {
      const collector = new TrailCollector();
      for await (const event of this.iterate(streamId, { toVersion: snapshot.version, signal: options.signal })) collector.add(event);
      trail = collector.trail;
    }
    return saveSnapshot(withSignal(this.documents, options.signal), this.table, this.codec, streamId, snapshot, name, {
      trail,
      replacesForgotten: options.replacesForgotten,
    });
  }

  /** The latest snapshot under `name`, if any; strongly consistent unless `consistent` is false. */
  async loadSnapshot<State>(
    id: StreamIdOf<Fields> | string,
    name?: string,
    options: { signal?: AbortSignal | undefined; consistent?: boolean | undefined } = {},
  ): Promise<Snapshot<State> | undefined> {
    const documents = withSignal(this.documents, options.signal);
    return loadSnapshot<State>(documents, this.table, this.codec, this.formatStreamId(id), name, options.consistent ?? true);
  }

  /**
   * @internal The instance's commits newest first, each its events in version order: one strongly
   * consistent Query of one commit each (see `readCommitsNewestFirst`), for a walk back from the head.
   */
  async *commitsNewestFirst(streamId: string, options: { signal?: AbortSignal | undefined } = {}): AsyncGenerator<EventOf<Events>[]> {
    let head = true;
    for await (const events of readCommitsNewestFirst(withSignal(this.documents, options.signal), this.table, this.codec, streamId)) {
      // The newest commit ends at the head.
      const last = events.at(-1);
      if (head && last !== undefined) this.commitEnds.remember(streamId, last.version);
      head = false;
      yield events as EventOf<Events>[];
    }
  }

  /** @internal A load's events (see `LoadTarget.loadEvents`). */
  async *loadEvents(
    streamId: string,
    range: LoadRange,
    reading: { consistent: boolean; signal: AbortSignal | undefined },
  ): AsyncGenerator<EventOf<Events>> {
    const versions = { fromVersion: range.fromVersion, toVersion: range.toVersion ?? MAX_VERSION };
    const paging = { pageSize: EventStreamDefaults.readPageSize, consistent: reading.consistent, afterCommitEnd: range.afterCommitEnd === true };
    let last: number | undefined;
    for await (const event of readEvents(withSignal(this.documents, reading.signal), this.table, this.codec, streamId, versions, paging)) {
      last = event.version;
      yield event as EventOf<Events>;
    }
    // Read to the head, the last event ends the newest commit (a read trims commits only at the bounds asked for).
    if (range.toVersion === undefined && last !== undefined) this.commitEnds.remember(streamId, last);
  }

  /**
   * @internal A load's first read: the snapshot under `name` and the newest events in one Query. A table
   * written by 0.2 keeps its snapshots under the old key until a newer one is saved: when the Query found
   * none and did not reach version 1, that key is read too (folding from version 1 needs no snapshot).
   */
  async loadSnapshotPage(
    streamId: string,
    name: string | undefined,
    reading: { limit: number; consistent: boolean; signal: AbortSignal | undefined },
  ): Promise<SnapshotPage<EventOf<Events>>> {
    const documents = withSignal(this.documents, reading.signal);
    const snapshotName = name ?? DEFAULT_SNAPSHOT_NAME;
    const page = await readSnapshotPage(documents, this.table, this.codec, streamId, snapshotName, reading);
    // The page reads down from the head: its newest event ends the newest commit.
    const head = page.newest.at(-1);
    if (head !== undefined) this.commitEnds.remember(streamId, head.version);
    const typed = page as SnapshotPage<EventOf<Events>>;
    // A snapshot under today's key, even one sealed for a forgotten subject, is newer than one of 0.2's.
    if (page.snapshot !== undefined || page.forgottenSnapshot || page.from === 1) return typed;
    const legacy = await loadLegacySnapshot(documents, this.table, this.codec, streamId, snapshotName, reading.consistent);
    return legacy === undefined ? typed : { ...typed, snapshot: legacy };
  }

  /** Folds the stream instance from its latest snapshot (if `snapshot` is given) plus the newer events. */
  async load<State>(
    id: StreamIdOf<Fields> | string,
    fold: Decider<State, EventOf<Events>, NewEventOf<Events>> | Omit<Decider<State, EventOf<Events>, NewEventOf<Events>>, 'decide'>,
    options: LoadOptions<State> = {},
  ): Promise<Loaded<State>> {
    return inSpan(streamSpan('load', this), async (span) => {
      const streamId = this.formatStreamId(id);
      span.set({ [Attr.streamId]: streamId });
      const loaded = await loadState(this, streamId, fold, options, readConsistency(options.consistent, true));
      span.set({ [Attr.version]: loaded.version });
      return loaded;
    });
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
    const { waitFor, ...command } = options;
    const result = await inSpan(streamSpan('execute', this), async (span) => {
      const streamId = this.formatStreamId(id);
      span.set({ [Attr.streamId]: streamId });
      const executed = await executeCommand(this, streamId, decider, command);
      span.set({ [Attr.version]: executed.version, [Attr.eventCount]: executed.events.length });
      return executed;
    });
    // A command that decided nothing wrote nothing to wait for.
    return waitFor === undefined || result.events.length === 0
      ? result
      : { ...result, projected: await waitForProjections(result.events, waitFor, options.signal) };
  }
}
