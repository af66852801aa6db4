import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ConfigurationError, DecodeError, DynafoldError } from '../errors';
import { Layout } from './layout';
import { warnDeprecated } from '../util';
import type { ReadRange, StreamEvent } from './types';
import { loadKeysFor, type ItemToDecode } from './commits';
import type { SubjectKeys } from '../erasure';

/** A stream image as Lambda, Pipes or GetRecords deliver it: binary as bytes or as base64 strings. */
export type StreamImage = Readonly<Record<string, unknown>>;

/** What decoders, projections and feeds need of any event stream, whatever its types. */
export interface AnyEventStream {
  readonly name: string;
  readonly table: string;
  readonly streamIdFields: ReadonlyArray<string>;
  /** When the stream's idempotency sentinels expire: DynamoDB TTL on `attribute` (see `idempotencyTtl`). */
  readonly sentinelTtl?: { readonly durationMs: number; readonly attribute: string } | undefined;
  formatStreamId(id: string | Readonly<Record<string, string>>): string;
  parseStreamId(streamId: string): Readonly<Record<string, string>>;
  /** The events a stored commit holds, in version order (see `EventStream.decodeCommit`). */
  decodeCommit(item: Readonly<Record<string, unknown>>): StreamEvent[];
  /** The key store of the stream's personal data, if it declares any (see `personalData`). */
  readonly subjectKeys?: SubjectKeys | undefined;
  /** Whether folds pass over this event (one of a type retired with `skip`); reads still return it. */
  readonly skipsInFolds?: ((event: StreamEvent) => boolean) | undefined;
  version(id: string, options?: { signal?: AbortSignal | undefined }): Promise<number>;
  read(id: string, range?: ReadRange): Promise<StreamEvent[]>;
  iterate(id: string, range?: ReadRange): AsyncIterable<StreamEvent>;
  readFrom(id: string, afterVersion: number, options?: Omit<ReadRange, 'fromVersion'>): Promise<StreamEvent[]>;
  instances(options?: { segments?: number | undefined; signal?: AbortSignal | undefined }): AsyncIterable<string>;
}

type EventsOf<S> = S extends { readonly $types: { readonly event: infer E } } ? E : StreamEvent;

/**
 * A decoded record: the events of its commit, in version order, with the name their stream was given in
 * the decoder's map, which narrows them.
 */
export type Decoded<Streams extends Record<string, AnyEventStream>> = {
  [K in keyof Streams & string]: {
    readonly stream: K;
    /** The commit's events: one per record for appends of one event, all of an append's otherwise. */
    readonly events: ReadonlyArray<EventsOf<Streams[K]>>;
    /**
     * The commit's only event.
     * @deprecated use `events`: a record holds an append's events. Reading this on a commit of several
     * throws `DecodeError` (never a part of it). Goes in the next minor version.
     */
    readonly event: EventsOf<Streams[K]>;
  };
}[keyof Streams & string];

/**
 * Turns a stream image into plain values. Lambda and Pipes deliver binary attributes as base64 strings,
 * the SDK's GetRecords as bytes; both become bytes here, so one codec decodes either. DynamoDB Local's
 * stream images render an empty map as `{}` instead of `{ M: {} }`; that is read as the empty map. No
 * image (a record's optional `NewImage`, `OldImage` or `Keys` left out) gives `undefined`.
 *
 * @example
 * ```ts
 * const keys = unmarshallImage(record.dynamodb?.Keys)   // Record<string, unknown> | undefined
 * ```
 */
export function unmarshallImage(image: StreamImage): Record<string, unknown>;
export function unmarshallImage(image: StreamImage | undefined): Record<string, unknown> | undefined;
export function unmarshallImage(image: StreamImage | undefined): Record<string, unknown> | undefined {
  return image === undefined ? undefined : unmarshall(normalizeMap(image) as Record<string, AttributeValue>);
}

/**
 * The map with each attribute value readable by `unmarshall`, copied only where one had to change: an image's
 * values are mostly strings, numbers and maps of them, which pass as they are (a copy of every image of a
 * batch was most of its decoding's cost).
 */
function normalizeMap(map: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  let changed: Record<string, unknown> | undefined;
  for (const name of Object.keys(map)) {
    const value = map[name];
    const normalized = normalizeValue(value);
    if (normalized === value) continue;
    changed ??= { ...map };
    changed[name] = normalized;
  }
  return changed ?? map;
}

function normalizeValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) return value;
  const attribute = value as Record<string, unknown>;
  if (typeof attribute['S'] === 'string' || typeof attribute['N'] === 'string') return value;
  if (Object.keys(attribute).length === 0) return { M: {} };
  if (typeof attribute['B'] === 'string') return { B: Buffer.from(attribute['B'], 'base64') };
  if (Array.isArray(attribute['BS'])) {
    return { BS: attribute['BS'].map((member: unknown) => (typeof member === 'string' ? Buffer.from(member, 'base64') : member)) };
  }
  const map = attribute['M'];
  if (typeof map === 'object' && map !== null && !Array.isArray(map)) {
    const normalized = normalizeMap(map as Record<string, unknown>);
    return normalized === map ? value : { M: normalized };
  }
  const list = attribute['L'];
  if (Array.isArray(list)) {
    const normalized = list.map(normalizeValue);
    return normalized.every((member, index) => member === list[index]) ? value : { L: normalized };
  }
  return value;
}

/** The stream name an image's event marker names, or `undefined` for snapshots, sentinels and other items. */
export function eventMarkerOf(image: StreamImage): string | undefined {
  const marker = image[Layout.eventMarker] as { S?: unknown } | undefined;
  return typeof marker?.S === 'string' ? marker.S : undefined;
}

/** Checks that no two streams store events under one marker, and indexes them by marker. */
export function streamsByMarker<Streams extends Record<string, AnyEventStream>>(
  streams: Streams,
): Map<string, { key: string; stream: AnyEventStream }> {
  const byMarker = new Map<string, { key: string; stream: AnyEventStream }>();
  for (const [key, stream] of Object.entries(streams)) {
    const other = byMarker.get(stream.name);
    if (other !== undefined && other.stream !== stream) {
      throw new ConfigurationError(
        `Streams "${other.key}" and "${key}" both store events under the marker "${stream.name}": give each stream its own name.`,
      );
    }
    byMarker.set(stream.name, { key, stream });
  }
  return byMarker;
}

/**
 * One decoder for several streams. A stream record's image is one commit (an append's events); the
 * decoder dispatches on its event marker and returns the commit's events in version order, or `undefined`
 * for snapshots, idempotency sentinels, other streams' events and other items, and for no image at all (a
 * REMOVE record has no `NewImage`: like an item that is no event, there is nothing to decode); a broken
 * commit of one of these streams throws {@link DecodeError}. For streams with personal data, load a
 * batch's keys first: `await decode.loadKeys(images)`.
 *
 * @example
 * ```ts
 * const decode = decoder({ Order: OrderEvents })
 * await decode.loadKeys(records.map((record) => record.dynamodb?.NewImage))
 * const decoded = decode(record.dynamodb?.NewImage)
 * if (decoded?.stream === 'Order') for (const event of decoded.events) console.log(event.version, event.type)
 * ```
 */
export function decoder<Streams extends Record<string, AnyEventStream>>(streams: Streams): Decoder<Streams> {
  const byMarker = streamsByMarker(streams);
  // Images whose keys were loaded, unmarshalled once for both.
  const unmarshalled = new WeakMap<object, Record<string, unknown>>();
  const itemOf = (image: StreamImage, stream: AnyEventStream) => {
    let item = unmarshalled.get(image);
    if (item !== undefined) return item;
    try {
      item = unmarshallImage(image);
    } catch (cause) {
      throw new DecodeError(`An image of stream ${stream.name} holds attribute values that can't be read.`, stream.name, [], { cause });
    }
    unmarshalled.set(image, item);
    return item;
  };
  const targetOf = (image: StreamImage | undefined) => {
    if (image === undefined) return undefined;
    if (typeof image !== 'object' || image === null) throw new DecodeError('A stream image must be an object of attribute values.', undefined);
    const marker = eventMarkerOf(image);
    return marker === undefined ? undefined : byMarker.get(marker);
  };
  const decode = (image: StreamImage | undefined) => {
    const target = targetOf(image);
    if (target === undefined || image === undefined) return undefined;
    return new DecodedCommit(target.key, target.stream.decodeCommit(itemOf(image, target.stream))) as unknown as Decoded<Streams>;
  };
  const loadKeys = async (images: Iterable<StreamImage | undefined>, options: { readonly signal?: AbortSignal | undefined } = {}) => {
    const items: ItemToDecode[] = [];
    for (const image of images) {
      try {
        const stream = targetOf(image)?.stream;
        if (stream?.subjectKeys !== undefined && image !== undefined) items.push({ keys: stream.subjectKeys, item: itemOf(image, stream) });
      } catch {
        // Its decode throws what is wrong with it.
      }
    }
    await loadKeysFor(items, options.signal);
  };
  return Object.assign(decode, { loadKeys });
}

/**
 * What {@link decoder} returns: a synchronous decode of one image, and `loadKeys`, which reads the keys
 * of the subjects whose personal data a batch of images holds (one BatchGetItem per key table) so that
 * their decodes need not wait. Call it with a batch's images before decoding them: a decode that meets a
 * key nobody loaded throws `SubjectKeyNotLoadedError`. For streams without personal data it reads nothing.
 */
export type Decoder<Streams extends Record<string, AnyEventStream>> = ((image: StreamImage | undefined) => Decoded<Streams> | undefined) & {
  /** Loads the keys the images' personal data needs; an image that can't be read is left to its decode, which throws. */
  readonly loadKeys: (images: Iterable<StreamImage | undefined>, options?: { readonly signal?: AbortSignal | undefined }) => Promise<void>;
};

/** An image as a batch decoded it: its commit's events (none for an item of no stream asked for), or why it could not be. */
export type DecodedImage<Streams extends Record<string, AnyEventStream>> =
  { readonly decoded: Decoded<Streams> | undefined } | { readonly error: unknown };

/**
 * Decodes a batch of images as every reader of stream records does: the keys of the subjects whose personal
 * data the batch holds are loaded first (`loadKeys`: one read per key table), then each image is decoded.
 * An image that needs a key the batch could not load fails with the load's error (a throttled read passes
 * by itself), not with `SubjectKeyNotLoadedError`.
 */
export async function decodeImages<Streams extends Record<string, AnyEventStream>>(
  decode: Decoder<Streams>,
  images: ReadonlyArray<StreamImage | undefined>,
  options: { readonly signal?: AbortSignal | undefined } = {},
): Promise<Array<DecodedImage<Streams>>> {
  const keysFailure = await decode.loadKeys(images, options).then(
    () => undefined,
    (error: unknown) => error,
  );
  return images.map((image) => {
    try {
      return { decoded: decode(image) };
    } catch (error) {
      return { error: keysFailure !== undefined && DynafoldError.is(error, 'erasure.keyNotLoaded') ? keysFailure : error };
    }
  });
}

/**
 * A decoded commit, with the deprecated `event` that refuses to stand for a commit of several. `event` is a
 * getter of the class, not a property of the object, so logging, spreading or comparing a decoded record
 * never trips it (and a batch's decodes define no property each).
 */
class DecodedCommit {
  constructor(
    readonly stream: string,
    readonly events: ReadonlyArray<StreamEvent>,
  ) {}

  get event(): StreamEvent {
    warnDeprecated(undefined, 'Decoded.event', 'Decoded.events');
    const [only] = this.events;
    if (this.events.length === 1 && only !== undefined) return only;
    const streamName = only?.streamName ?? this.stream;
    throw new DecodeError(
      `The record holds ${this.events.length} events of stream ${streamName} (an append's commit): read \`events\`, which holds them all.`,
      streamName,
    );
  }
}

/** Which event source mapping a filter pattern is for. */
export interface EventFilterOptions {
  /**
   * `'dynamodb'`: a DynamoDB Streams mapping or a Pipe, which filter on the change record itself.
   * `'kinesis'`: a Kinesis Data Streams mapping, which filters only on `data` (the change record,
   * base64-decoded as JSON), so the pattern sits under `data`.
   * @defaultValue 'dynamodb'
   */
  readonly source?: 'dynamodb' | 'kinesis';
}

/**
 * The FilterCriteria pattern that keeps only INSERTs of these streams' events, for a Lambda event source
 * mapping or a Pipe: `{ Filters: [{ Pattern: JSON.stringify(eventFilterPattern([OrderEvents])) }] }`; for a
 * Kinesis mapping, `eventFilterPattern([OrderEvents], { source: 'kinesis' })`. Streams may be given by
 * name, so infrastructure code computes it without a DynamoDB client.
 */
export function eventFilterPattern(streams: ReadonlyArray<AnyEventStream | string>, options: EventFilterOptions = {}): Record<string, unknown> {
  const names = streams.map((stream) => (typeof stream === 'string' ? stream : stream.name));
  const change = {
    eventName: ['INSERT'],
    dynamodb: { NewImage: { [Layout.eventMarker]: { S: [...new Set(names)] } } },
  };
  return options.source === 'kinesis' ? { data: change } : change;
}
