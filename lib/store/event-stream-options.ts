import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConfigurationError, ValidationError } from '../errors';
import {
  isWellFormed,
  requireInteger,
  resolveRetry,
  resolveTtl,
  requireTableName,
  type ResolvedRetry,
  type ResolvedTtl,
  type RetryOptions,
  type Ttl,
} from '../util';
import type { CompressionOptions } from '../dynamo';
import { EventStreamDefaults } from './defaults';
import { Layout } from './layout';
import { SentinelAttributes, validateInline } from './append';
import type { InlineProjection } from './inline';
import type { WaitForProjections } from './read-your-writes';
import type { EventSchemas } from './types';
import type { EventVersionsOf } from './codec';
import type { PersonalDataOptions } from '../erasure';

/** An idempotency key is part of a sort key (`i#<key>`), which DynamoDB limits to 1,024 bytes. */
const MAX_IDEMPOTENCY_KEY_BYTES = 1000;

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
  /**
   * A zod schema per event type, for `data`: today's shape, which `type` narrows to. A type no longer
   * appended whose old events stay keeps its place as `retiredEvent()`.
   */
  readonly events: Events;
  /**
   * How event types changed: for a type, its older versions (each one's schema and a pure upcast to the
   * next), the names it had before a rename, and what to make of a version newer than this code knows.
   * Reads, decoders, loads and projections only ever see today's shapes.
   *
   * @example
   * ```ts
   * versions: {
   *   ItemAdded: {
   *     older: [olderVersion(1, z.object({ sku: z.string(), price: z.number() }), (v1) => ({ sku: v1.sku, priceCents: Math.round(v1.price * 100) }))],
   *     aliases: ['ProductAdded'],
   *   },
   * }
   * ```
   * @defaultValue every type at version 1, no aliases
   */
  readonly versions?: EventVersionsOf<Events> | undefined;
  /** @defaultValue gzip above 4096 bytes of JSON ({@link EventStreamDefaults.compression}) */
  readonly compression?: CompressionOptions | undefined;
  /**
   * Let DynamoDB TTL delete idempotency sentinels this long after their append (enable TTL on the events
   * table's `attribute`); an expired sentinel no longer holds its key, even before DynamoDB deletes it.
   * @defaultValue sentinels are kept for ever; `attribute` defaults to `ttl`
   */
  readonly idempotencyTtl?: Ttl | undefined;
  /**
   * Writes each event of an append as an item (a commit) of its own, all in one transaction, as 0.3 wrote
   * them, instead of one item holding the append's events. Set it only while writers of 0.2 run beside
   * this release (a rolling upgrade): 0.2 checks a caller's `expectedVersion` by the item at that version,
   * so given the first version of a commit of several it would append inside it. Unset it once no 0.2
   * writer is left; what it wrote reads like any other commit. It costs what 0.3 did: 2 write units per
   * event in a transaction for appends of several.
   * @defaultValue false ({@link EventStreamDefaults.itemPerEvent})
   */
  readonly itemPerEvent?: boolean | undefined;
  /**
   * Which fields of which event types are personal data, and whose (a subject id from the event's data or
   * its stream id): appends seal them with the subject's key from `keys` before anything is written, every
   * reader opens them, and once `keys.forget(subject)` deleted the key they read as the value declared for
   * each. A type or field the stream does not have is a `ConfigurationError`. See the erasure guide.
   *
   * @example
   * ```ts
   * personalData: {
   *   keys,
   *   events: { OrderPlaced: { subject: { data: 'customerId' }, fields: { email: '[erased]', address: null } } },
   * }
   * ```
   * @defaultValue none: no field is sealed
   */
  readonly personalData?: PersonalDataOptions<Events, Fields[number]> | undefined;
  /**
   * Store the W3C trace context of the append's span on each commit (28 bytes, once for all its
   * events), so the spans that project its events link to it across the stream. Only with an OpenTelemetry
   * SDK registered and a span active; `false` stores none.
   * @defaultValue true ({@link EventStreamDefaults.traceContext})
   */
  readonly traceContext?: boolean | undefined;
  /**
   * For how many stream instances (the most recently used) the stream remembers the last version it saw
   * end a commit: what it appended, the head a load or `version` read, the commit that beat an append.
   * An append whose `expectedVersion` is that version is written without the read that otherwise proves
   * it (see `append`): a writer going on from its own last result appends with one request. Commits are
   * never changed or deleted, so what it remembers stays true; only deleting a table's items under a
   * running stream (a test that recreates the table under the same name) would make it wrong: give such
   * a test a new `EventStream`, or 0 here. 0 remembers nothing, and every such append is read first.
   * @defaultValue 10,000 instances ({@link EventStreamDefaults.rememberedVersions}): about 1 MB for ids of a few dozen characters
   */
  readonly rememberedVersions?: number | undefined;
}

/** Options of {@link EventStream.append}. */
export interface AppendOptions {
  /** The version the stream must be at; omitted → append at the head, retrying on conflict. */
  readonly expectedVersion?: number | undefined;
  /**
   * Makes a retried append return the first append's result instead of appending again. The key is bound
   * to its request (see `request`): used again for another request, the append fails with
   * `IdempotencyMismatchError` and writes nothing.
   */
  readonly idempotencyKey?: string | undefined;
  /**
   * What `idempotencyKey` stands for, compared (as a SHA-256 of its canonical JSON) when the key comes again.
   * @defaultValue the events' types and data, and `expectedVersion` (metadata is left out)
   */
  readonly request?: unknown;
  /** Stored on every event of the append (an event's own metadata wins per key). */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /**
   * How an append that loses to concurrent writers tries again: at the head (no `expectedVersion`) when
   * another append took the next version, and whenever DynamoDB cancels the transaction for a concurrent
   * one. Out of tries or time, it fails with `AppendContentionError`. Invalid, the call fails with `ValidationError`.
   * @defaultValue 100 tries within 20 s, waiting a fully jittered 5 ms growing ×2 to 1 s ({@link EventStreamDefaults.appendRetry})
   */
  readonly retry?: RetryOptions | undefined;
  /** Cancels the append: every request is aborted and the call rejects with the signal's reason (nothing is written unless the transaction already went through). */
  readonly signal?: AbortSignal | undefined;
  /**
   * Projections whose rows to write in the append's own transaction when they can: each row read strongly
   * consistent is at the version before the append and everything fits DynamoDB's limits; otherwise the
   * projector applies them as usual. Never fails the append: the result says which were applied inline.
   */
  readonly inline?: ReadonlyArray<InlineProjection> | undefined;
  /**
   * Read-your-writes: resolve only once these projections' rows reflect the appended events, with the rows
   * in `projected` (by projection name). See `Projection.waitFor`.
   */
  readonly waitFor?: WaitForProjections | undefined;
}

/**
 * The retry budget of an append: whichever of the two runs out first ends it.
 * @deprecated the same as {@link RetryOptions}; goes in the next minor version.
 */
export type AppendRetry = RetryOptions;

/**
 * A call's retry options with `defaults` applied. A call has no construction to fail: an option it can't
 * honour fails the call with `ValidationError`, as its other options do.
 */
export function resolveCallRetry(retry: RetryOptions | undefined, defaults: Parameters<typeof resolveRetry>[1], whose: string): ResolvedRetry {
  try {
    return resolveRetry(retry, defaults, whose === '' ? undefined : `Options of ${whose}`);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    throw new ValidationError(error.message, [{ path: ['retry'], message: 'out of range' }]);
  }
}

/** Checks an append's options (not its events); throws `ValidationError` naming the first one that can't be honoured. */
export function validateAppendOptions(streamName: string, options: AppendOptions): void {
  const { expectedVersion, idempotencyKey } = options;
  validateInline(streamName, options.inline);
  if (expectedVersion !== undefined && (!Number.isSafeInteger(expectedVersion) || expectedVersion < 0)) {
    throw new ValidationError(`Expected \`expectedVersion\` to be an integer ≥ 0, got ${String(expectedVersion)}.`, [
      { path: ['expectedVersion'], message: 'not an integer ≥ 0' },
    ]);
  }
  if (
    idempotencyKey !== undefined &&
    (typeof idempotencyKey !== 'string' ||
      idempotencyKey.length === 0 ||
      Buffer.byteLength(idempotencyKey) > MAX_IDEMPOTENCY_KEY_BYTES ||
      !isWellFormed(idempotencyKey))
  ) {
    throw new ValidationError(`Expected \`idempotencyKey\` to be a well-formed string of 1 to ${MAX_IDEMPOTENCY_KEY_BYTES} bytes (UTF-8).`, [
      { path: ['idempotencyKey'], message: 'invalid' },
    ]);
  }
}

/** Checks a stream's options once, at construction; throws `ConfigurationError` naming the first one that can't be honoured. */
export function validateStreamOptions(options: EventStreamOptions<string, ReadonlyArray<string>, EventSchemas>): void {
  const { name, table, streamId, events, client } = options;
  if (client === undefined || client === null) throw new ConfigurationError('Expected `client` to be a DynamoDBClient.');
  requireTableName('table', table, `Stream ${String(name)}`);
  if (typeof name !== 'string' || name.length === 0 || name.includes('#') || !isWellFormed(name)) {
    throw new ConfigurationError(`Expected \`name\` to be a non-empty, well-formed stream name without "#", got ${JSON.stringify(name)}.`);
  }
  if (
    !Array.isArray(streamId) ||
    streamId.length === 0 ||
    new Set(streamId).size !== streamId.length ||
    streamId.some((f) => typeof f !== 'string' || f === '')
  ) {
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
  if (options.idempotencyTtl !== undefined) resolveIdempotencyTtl(options.idempotencyTtl, name);
  if (options.itemPerEvent !== undefined && typeof options.itemPerEvent !== 'boolean') {
    throw new ConfigurationError(`Stream ${name}: expected \`itemPerEvent\` to be a boolean, got ${JSON.stringify(options.itemPerEvent)}.`);
  }
  if (options.traceContext !== undefined && typeof options.traceContext !== 'boolean') {
    throw new ConfigurationError(`Stream ${name}: expected \`traceContext\` to be a boolean, got ${JSON.stringify(options.traceContext)}.`);
  }
  if (options.rememberedVersions !== undefined) requireInteger('rememberedVersions', options.rememberedVersions, 0, undefined, `Stream ${name}`);
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

/** The idempotency TTL with its default attribute; throws `ConfigurationError` for one that can't be honoured. */
export function resolveIdempotencyTtl(ttl: Ttl, streamName: string): ResolvedTtl {
  return resolveTtl(
    'idempotencyTtl',
    ttl,
    {
      minMs: 1_000,
      attribute: EventStreamDefaults.idempotencyTtlAttribute,
      reserved: [Layout.partitionKey, Layout.sortKey, Layout.idempotencyMarker, ...Object.values(SentinelAttributes)],
    },
    `Stream ${streamName}`,
  );
}
