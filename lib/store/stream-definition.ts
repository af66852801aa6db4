import { ConfigurationError, ValidationError } from '../errors';
import { assertKeyLength } from '../dynamo';
import { OwnedMemo, type ResolvedTtl } from '../util';
import type { SubjectKeys } from '../erasure';
import { eventCodec, joinComposite, splitComposite, type EventCodec } from './codec';
import { CommitLog } from './commits';
import { EventStreamDefaults } from './defaults';
import { resolveIdempotencyTtl, validateStreamOptions, type EventStreamOptions } from './event-stream-options';
import { partitionKeyOf } from './layout';
import { personalDataOf } from './personal-data';
import type { EventSchemas } from './types';

/**
 * A stream as its actions see it: its options checked and resolved, its codec, and its commit layer. The
 * actions (append, read, load, execute, the snapshots) are modules over it; `EventStream` is its public face.
 */
export interface StreamDefinition {
  readonly name: string;
  readonly table: string;
  readonly streamIdFields: ReadonlyArray<string>;
  readonly events: EventSchemas;
  readonly codec: EventCodec;
  /** Every request on the stream's events table, and what must hold for all of them. */
  readonly commits: CommitLog;
  /** How long idempotency sentinels live (`idempotencyTtl` resolved), if they expire. */
  readonly sentinelTtl: ResolvedTtl | undefined;
  /** Whether each event of an append is a commit of its own (see `EventStreamOptions.itemPerEvent`). */
  readonly itemPerEvent: boolean;
  /** Whether appends store their span's trace context (see `EventStreamOptions.traceContext`). */
  readonly storesTraceContext: boolean;
  /** Whether folds pass over an event (one of a type retired with `skip`); absent when no type is. */
  readonly skipsInFolds: ((event: { readonly type: string }) => boolean) | undefined;
  /** The key store of the stream's personal data (`personalData.keys`), if it declares any. */
  readonly subjectKeys: SubjectKeys | undefined;
}

/** Checks a stream's options (`ConfigurationError` for the first that can't be honoured) and resolves its definition. */
export function defineStream(options: EventStreamOptions<string, ReadonlyArray<string>, EventSchemas>): StreamDefinition {
  validateStreamOptions(options);
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
  const declaring = { name: options.name, streamIdFields: options.streamId, events: options.events, types: codec.types };
  const personal = personalDataOf(declaring, options.personalData);
  const full = personal === undefined ? codec : { ...codec, personal };
  const types = full.types;
  return {
    name: options.name,
    table: options.table,
    streamIdFields: options.streamId,
    events: options.events,
    codec: full,
    commits: new CommitLog(options.table, full, options.client, options.rememberedVersions ?? EventStreamDefaults.rememberedVersions),
    sentinelTtl: options.idempotencyTtl === undefined ? undefined : resolveIdempotencyTtl(options.idempotencyTtl, options.name),
    itemPerEvent: options.itemPerEvent ?? EventStreamDefaults.itemPerEvent,
    storesTraceContext: options.traceContext ?? EventStreamDefaults.traceContext,
    skipsInFolds: [...types.values()].some((reading) => reading.retired?.skip === true)
      ? (event) => types.get(event.type)?.retired?.skip === true
      : undefined,
    subjectKeys: personal === undefined ? undefined : options.personalData?.keys,
  };
}

/** The string form of a stream id: its composite values joined with `#`. */
export function formatStreamId(stream: StreamDefinition, id: unknown): string {
  if (typeof id !== 'string' && (typeof id !== 'object' || id === null))
    throw new ValidationError(`Stream id of ${stream.name} must be an object with ${stream.streamIdFields.join(', ')}.`);
  const values = typeof id === 'string' ? parseStreamId(stream, id) : (id as Readonly<Record<string, unknown>>);
  const joined = joinComposite(`Stream id of ${stream.name}`, stream.streamIdFields, values);
  assertKeyLength(`Stream id of ${stream.name}`, partitionKeyOf(stream.name, joined), 'partition');
  return joined;
}

// Parsed stream ids by stream, the last few thousand: a batch's events mostly share their instances, and a
// projection's `key` parses each event's id.
const parsedIds = new OwnedMemo<StreamDefinition, Readonly<Record<string, string>>>(4_096);

/**
 * The structured form of a stream id's string form (a new object each time: the caller may keep or change
 * it). A multi-field id with a `#` in a value is ambiguous: `ValidationError`.
 */
export function parseStreamId(stream: StreamDefinition, streamId: string): Record<string, string> {
  return { ...parsedIds.get(stream, streamId, () => splitComposite(`Stream id of ${stream.name}`, stream.streamIdFields, streamId)) };
}

/** The definition of each `EventStream`, by the stream: its actions, and the package's other modules, reach it here. */
const definitions = new WeakMap<object, StreamDefinition>();

/** Records `stream`'s definition (its constructor does). */
export function defineAs(stream: object, definition: StreamDefinition): void {
  definitions.set(stream, definition);
}

/** The definition of an `EventStream`; anything else is a `ConfigurationError`. */
export function definitionOf(stream: object): StreamDefinition {
  const definition = definitions.get(stream);
  if (definition === undefined) throw new ConfigurationError(`Expected an EventStream, got ${describe(stream)}.`);
  return definition;
}

/**
 * The commit layer of an `EventStream`: for the package's other modules (the projector's catch-up and
 * backfill) that read its commits, since no other file sends requests to the events table.
 */
export function commitsOf(stream: object): CommitLog {
  return definitionOf(stream).commits;
}

function describe(value: object): string {
  const name = (value as { readonly name?: unknown }).name;
  return typeof name === 'string' ? `a stream named ${name} that is no EventStream` : 'an object that is no EventStream';
}
