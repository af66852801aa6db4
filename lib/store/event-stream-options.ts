import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../errors';
import { isWellFormed, requireInteger, resolveTtl, requireTableName, type ResolvedTtl, type Ttl } from '../util';
import type { CompressionOptions } from '../dynamo';
import { EventStreamDefaults } from './defaults';
import { Layout, SentinelAttributes } from './layout';
import type { EventSchemas } from './types';
import type { EventVersionsOf } from './codec';
import type { PersonalDataOptions } from '../erasure';

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
   * As many instances loaded from each snapshot name are remembered with how far the load found the
   * snapshot behind, so the next load reads as many commits with it (see `snapshotReadAhead` of the defaults).
   * @defaultValue 10,000 instances ({@link EventStreamDefaults.rememberedVersions}): about 1 MB for ids of a few dozen characters, and 1 MB more for each snapshot name loads use
   */
  readonly rememberedVersions?: number | undefined;
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
