import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConcurrencyError, ConfigurationError, ValidationError } from '../errors';
import { backoffDelay } from '../util/backoff';
import { sleep } from '../util/sleep';
import { planItems, sendAppend, sentinelKey } from './append-transaction';
import { executeCommand, loadState, type CommandOptions, type CommandResult, type Decider, type LoadOptions, type Loaded } from './command';
import { joinComposite, splitComposite } from './composite';
import type { CompressionOptions } from './compression';
import { EventStreamDefaults } from './defaults';
import { documentClient } from './document-client';
import { fromEventItem, validateNewEvent, writtenEvent, type EventCodec, type ValidEvent } from './event-codec';
import { MAX_VERSION } from './layout';
import { getItem } from './request';
import { loadSnapshot, saveSnapshot, type Snapshot } from './snapshots';
import { readEvents, readHead } from './stream-reader';
import type { EventOf, EventSchemas, NewEventOf, StreamIdOf } from './types';

/** Options of {@link EventStream}. */
export interface EventStreamOptions<Name extends string, Fields extends ReadonlyArray<string>, Events extends EventSchemas> {
  /** The DynamoDB client; never constructed or destroyed by the stream. */
  readonly client: DynamoDBClient;
  /** The events table (see `eventsTableDefinition`). */
  readonly table: string;
  /** The stream's name, also the marker stored on its event items. No `#`. */
  readonly name: Name;
  /** The composite fields of a stream instance's id, e.g. `['orderId']`. */
  readonly streamId: Fields;
  /** A zod schema per event type, for `data`. */
  readonly events: Events;
  /** @defaultValue gzip above 4096 bytes of JSON ({@link EventStreamDefaults.compression}) */
  readonly compression?: CompressionOptions;
}

/** Options of {@link EventStream.append}. */
export interface AppendOptions {
  /** The version the stream must be at; omitted → append at the head, retrying on conflict. */
  readonly expectedVersion?: number;
  /** Makes a retried append return the first append's result instead of appending again. */
  readonly idempotencyKey?: string;
  /** Stored on every event of the append (an event's own metadata wins per key). */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * Tries of an append at the head (no `expectedVersion`) that keeps losing to concurrent appends, and of
   * transactions DynamoDB cancels for contention, before `ConcurrencyError`. Raise it for hot streams.
   * @defaultValue 10 ({@link EventStreamDefaults.appendAttempts})
   */
  readonly attempts?: number;
}

/** What an append wrote. */
export interface AppendResult<Event> {
  /** The stream's version after the append: the last event's version. */
  readonly version: number;
  readonly events: ReadonlyArray<Event>;
}

/**
 * A typed event stream stored in a DynamoDB table: contiguous versions, optimistic appends in one
 * transaction, strongly consistent reads, snapshots and a command helper.
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
export class EventStream<const Name extends string = string, const Fields extends ReadonlyArray<string> = ReadonlyArray<string>, Events extends EventSchemas = EventSchemas> {
  readonly name: Name;
  readonly table: string;
  readonly streamIdFields: Fields;
  readonly events: Events;
  /** Type-level only (no runtime value): the stream's event, new-event and id types, for inference. */
  declare readonly $types: { readonly event: EventOf<Events>; readonly newEvent: NewEventOf<Events>; readonly streamId: StreamIdOf<Fields> };
  /** @internal */
  readonly codec: EventCodec;
  private readonly documents: DynamoDBDocumentClient;

  constructor(options: EventStreamOptions<Name, Fields, Events>) {
    validateOptions(options);
    this.name = options.name;
    this.table = options.table;
    this.streamIdFields = options.streamId;
    this.events = options.events;
    const compression = options.compression ?? EventStreamDefaults.compression;
    this.codec = {
      streamName: options.name,
      schemas: options.events,
      compression:
        compression === false
          ? false
          : {
              algorithm: compression.algorithm ?? EventStreamDefaults.compression.algorithm,
              thresholdBytes: compression.thresholdBytes ?? EventStreamDefaults.compression.thresholdBytes,
            },
    };
    this.documents = documentClient(options.client);
  }

  /** The string form of a stream id: its composite values joined with `#`. */
  formatStreamId(id: StreamIdOf<Fields> | string): string {
    if (typeof id === 'string') return joinComposite(`Stream id of ${this.name}`, this.streamIdFields, this.parseStreamId(id));
    if (typeof id !== 'object' || id === null) throw new ValidationError(`Stream id of ${this.name} must be an object with ${this.streamIdFields.join(', ')}.`);
    return joinComposite(`Stream id of ${this.name}`, this.streamIdFields, id);
  }

  /** The structured form of a stream id's string form. A multi-field id with a `#` in a value is ambiguous: `ValidationError`. */
  parseStreamId(streamId: string): StreamIdOf<Fields> {
    return splitComposite(`Stream id of ${this.name}`, this.streamIdFields, streamId) as StreamIdOf<Fields>;
  }

  /**
   * Appends events in ONE TransactWriteItems. With `expectedVersion`, a stream at another version fails
   * with `ConcurrencyError` (expected and actual version) and nothing is written; without it the events
   * go at the head, retried on conflict. With `idempotencyKey`, a repeated append returns the first result.
   */
  async append(id: StreamIdOf<Fields> | string, events: ReadonlyArray<NewEventOf<Events>>, options: AppendOptions = {}): Promise<AppendResult<EventOf<Events>>> {
    const streamId = this.formatStreamId(id);
    const valid = this.validateAppend(events, options);
    const attempts = options.attempts ?? EventStreamDefaults.appendAttempts;
    for (let attempt = 0; ; attempt++) {
      const expectedVersion = options.expectedVersion ?? (await this.version(streamId));
      const outcome = await this.appendAt(streamId, expectedVersion, valid, options);
      if (outcome !== 'conflict' && outcome !== 'contended') return outcome;
      const atHead = options.expectedVersion === undefined;
      if ((outcome === 'conflict' && !atHead) || attempt + 1 >= attempts) {
        throw new ConcurrencyError(this.name, streamId, expectedVersion, await this.version(streamId));
      }
      await sleep(backoffDelay(attempt, EventStreamDefaults.appendBackoff));
    }
  }

  private async appendAt(
    streamId: string,
    expectedVersion: number,
    events: ReadonlyArray<ValidEvent>,
    options: AppendOptions,
  ): Promise<AppendResult<EventOf<Events>> | 'conflict' | 'contended'> {
    const plan = {
      table: this.table,
      streamId,
      expectedVersion,
      events,
      timestamp: new Date().toISOString(),
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
    };
    const items = planItems(this.codec, plan);
    const outcome = await sendAppend(this.documents, this.codec, plan, items);
    switch (outcome.kind) {
      case 'appended':
        return { version: expectedVersion + items.length, events: items.map((item, index) => writtenEvent(this.codec, item, events[index] as ValidEvent) as EventOf<Events>) };
      case 'duplicate':
        return this.firstResult(streamId, options.idempotencyKey as string);
      default:
        return outcome.kind;
    }
  }

  private async firstResult(streamId: string, idempotencyKey: string): Promise<AppendResult<EventOf<Events>>> {
    const sentinel = await getItem(this.documents, this.table, sentinelKey(this.codec, streamId, idempotencyKey));
    const fromVersion = Number(sentinel?.['fromVersion']);
    const toVersion = Number(sentinel?.['toVersion']);
    return { version: toVersion, events: await this.read(streamId, { fromVersion, toVersion }) };
  }

  private validateAppend(events: ReadonlyArray<unknown>, options: AppendOptions): ValidEvent[] {
    if (!Array.isArray(events) || events.length === 0) {
      throw new ValidationError(`An append to ${this.name} needs at least one event.`, [{ path: [], message: 'no events' }]);
    }
    const { expectedVersion, idempotencyKey, metadata, attempts } = options;
    if (attempts !== undefined && (!Number.isSafeInteger(attempts) || attempts < 1)) {
      throw new ValidationError(`Expected \`attempts\` to be an integer ≥ 1, got ${String(attempts)}.`, [{ path: ['attempts'], message: 'not an integer ≥ 1' }]);
    }
    if (expectedVersion !== undefined && (!Number.isSafeInteger(expectedVersion) || expectedVersion < 0)) {
      throw new ValidationError(`Expected \`expectedVersion\` to be an integer ≥ 0, got ${String(expectedVersion)}.`, [
        { path: ['expectedVersion'], message: 'not an integer ≥ 0' },
      ]);
    }
    if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || idempotencyKey.length === 0 || idempotencyKey.length > 512)) {
      throw new ValidationError('Expected `idempotencyKey` to be a string of 1 to 512 characters.', [{ path: ['idempotencyKey'], message: 'invalid' }]);
    }
    return events.map((event, index) => {
      const valid = validateNewEvent(this.codec, event, index);
      return metadata === undefined ? valid : { ...valid, metadata: { ...metadata, ...valid.metadata } };
    });
  }

  /** The stream instance's current version (0 when it has no events), strongly consistent. */
  async version(id: StreamIdOf<Fields> | string): Promise<number> {
    return readHead(this.documents, this.table, this.codec, this.formatStreamId(id));
  }

  /** Events of a stream instance in version order, paged, strongly consistent: from `fromVersion` (default 1) to `toVersion` (default the head). */
  async *iterate(
    id: StreamIdOf<Fields> | string,
    range: { fromVersion?: number; toVersion?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<EventOf<Events>> {
    const streamId = this.formatStreamId(id);
    const fromVersion = range.fromVersion ?? 1;
    const toVersion = Math.min(range.toVersion ?? MAX_VERSION, MAX_VERSION);
    for (const [name, value] of [['fromVersion', fromVersion], ['toVersion', toVersion]] as const) {
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new ValidationError(`Expected \`${name}\` to be an integer ≥ 0, got ${String(value)}.`, [{ path: [name], message: 'not an integer ≥ 0' }]);
      }
    }
    yield* readEvents(
      this.documents,
      this.table,
      this.codec,
      streamId,
      { fromVersion, toVersion },
      EventStreamDefaults.readPageSize,
      range.signal,
    ) as AsyncGenerator<EventOf<Events>>;
  }

  /** All events of a range (see {@link EventStream.iterate}) in an array. */
  async read(id: StreamIdOf<Fields> | string, range: { fromVersion?: number; toVersion?: number } = {}): Promise<EventOf<Events>[]> {
    const events: EventOf<Events>[] = [];
    for await (const event of this.iterate(id, range)) events.push(event);
    return events;
  }

  /** The events after `afterVersion`, up to `toVersion` (default the head). */
  async readFrom(id: StreamIdOf<Fields> | string, afterVersion: number, options: { toVersion?: number } = {}): Promise<EventOf<Events>[]> {
    return this.read(id, { fromVersion: afterVersion + 1, ...options });
  }

  /** Decodes a stored event item of this stream (unmarshalled). Throws `DecodeError` for a broken item. */
  decodeItem(item: Readonly<Record<string, unknown>>): EventOf<Events> {
    return fromEventItem(this.codec, item) as EventOf<Events>;
  }

  /** Saves a snapshot unless a newer one exists; resolves whether it was written. */
  async saveSnapshot<State>(id: StreamIdOf<Fields> | string, snapshot: Snapshot<State>, name?: string): Promise<boolean> {
    return saveSnapshot(this.documents, this.table, this.codec, this.formatStreamId(id), snapshot, name);
  }

  /** The latest snapshot under `name`, if any. */
  async loadSnapshot<State>(id: StreamIdOf<Fields> | string, name?: string): Promise<Snapshot<State> | undefined> {
    return loadSnapshot<State>(this.documents, this.table, this.codec, this.formatStreamId(id), name);
  }

  /** Folds the stream instance from its latest snapshot (if `snapshot` is given) plus the newer events. */
  async load<State>(id: StreamIdOf<Fields> | string, fold: Decider<State, EventOf<Events>, NewEventOf<Events>> | Omit<Decider<State, EventOf<Events>, NewEventOf<Events>>, 'decide'>, options: LoadOptions = {}): Promise<Loaded<State>> {
    return loadState(this, this.formatStreamId(id), fold, options);
  }

  /**
   * Runs a command: load → decide → append with `expectedVersion`, retrying on `ConcurrencyError` a bounded
   * number of times. `decide` may throw a domain error, which is passed through unretried.
   */
  async execute<State>(id: StreamIdOf<Fields> | string, decider: Decider<State, EventOf<Events>, NewEventOf<Events>>, options: CommandOptions = {}): Promise<CommandResult<State, EventOf<Events>>> {
    return executeCommand(this, this.formatStreamId(id), decider, options);
  }
}

function validateOptions(options: EventStreamOptions<string, ReadonlyArray<string>, EventSchemas>): void {
  const { name, table, streamId, events, client } = options;
  if (client === undefined || client === null) throw new ConfigurationError('Expected `client` to be a DynamoDBClient.');
  if (typeof table !== 'string' || table.length < 3) throw new ConfigurationError('Expected `table` to be a table name of at least 3 characters.');
  if (typeof name !== 'string' || name.length === 0 || name.includes('#')) {
    throw new ConfigurationError(`Expected \`name\` to be a non-empty stream name without "#", got ${JSON.stringify(name)}.`);
  }
  if (!Array.isArray(streamId) || streamId.length === 0 || new Set(streamId).size !== streamId.length || streamId.some((f) => typeof f !== 'string' || f === '')) {
    throw new ConfigurationError(`Stream ${name}: expected \`streamId\` to be a non-empty list of distinct field names.`);
  }
  if (typeof events !== 'object' || events === null || Object.keys(events).length === 0) {
    throw new ConfigurationError(`Stream ${name}: expected \`events\` to map at least one event type to a zod schema.`);
  }
  for (const [type, schema] of Object.entries(events)) {
    if (typeof (schema as { safeParse?: unknown })?.safeParse !== 'function') {
      throw new ConfigurationError(`Stream ${name}: the schema of event type ${type} is not a zod schema.`);
    }
  }
  const compression = options.compression;
  if (compression !== undefined && compression !== false) {
    if (compression.algorithm !== undefined && compression.algorithm !== 'gzip' && compression.algorithm !== 'brotli') {
      throw new ConfigurationError(`Stream ${name}: expected \`compression.algorithm\` to be 'gzip' or 'brotli'.`);
    }
    if (compression.thresholdBytes !== undefined && (!Number.isInteger(compression.thresholdBytes) || compression.thresholdBytes < 0)) {
      throw new ConfigurationError(`Stream ${name}: expected \`compression.thresholdBytes\` to be an integer ≥ 0.`);
    }
  }
}
