import { DecodeError } from '../../errors';
import { compress, decompress } from '../../dynamo';
import type { EventCodec, ValidEvent } from './event-codec';
import { Layout } from '../layout';
import { storedValueText } from './commit-keys';
import { parsedData } from '../schema-issues';
import { toTodaysData } from './upcast';
import type { StreamEvent } from '../types';
import { withTrail, type PersonalCodec, type SealedEventRef } from '../../personal';
import { partitionKeyOf } from '../layout';
import type { TraceContext } from '../../telemetry';

type Attributes = Readonly<Record<string, unknown>>;

/** Where a stored event sits and what its commit says of it: its place in messages, its id, version and time. */
export interface StoredEventPlace {
  /** Where the event is, for an error's message ("Event item <pk> <sk> of stream Order", and its index in a commit of several). */
  readonly where: string;
  readonly streamId: string;
  readonly version: number;
  /** When its commit was appended (ISO 8601). */
  readonly timestamp: string;
  /** The trace context its commit stored, handed to each of its events. */
  readonly trace?: TraceContext | undefined;
}

/**
 * The attributes that store one event: `type`, `tv` (its type's version, left out for 1), `data` (a map
 * of its JSON, or compressed bytes with `enc` naming the algorithm) and `metadata` when it has any. A commit
 * of one event holds them at the top level, a commit of several one map of them per event.
 */
export function storedEventAttributes(codec: EventCodec, event: ValidEvent): Record<string, unknown> {
  const attributes: Record<string, unknown> = { type: event.type };
  const typeVersion = codec.types.get(event.type)?.version ?? 1;
  if (typeVersion > 1) attributes[Layout.typeVersion] = typeVersion;
  const { json, compressed } = event.stored;
  if (compressed && codec.compression !== false) {
    attributes['data'] = compress(json, codec.compression.algorithm);
    attributes[Layout.encoding] = codec.compression.algorithm;
  } else {
    attributes['data'] = JSON.parse(json) as unknown;
  }
  if (event.metadata !== undefined) attributes['metadata'] = event.metadata;
  if (event.personal !== undefined) attributes[Layout.personal] = event.personal.attribute;
  return attributes;
}

/**
 * The event an append just wrote, built from the validated event and its stored attributes without
 * decoding them again: the data as stored (JSON-normalised), so it equals what a later read returns.
 */
export function writtenEvent(codec: EventCodec, attributes: Attributes, event: ValidEvent, place: StoredEventPlace): StreamEvent {
  const data = event.personal?.data ?? (attributes[Layout.encoding] === undefined ? attributes['data'] : (JSON.parse(event.stored.json) as unknown));
  const written = {
    streamName: codec.streamName,
    streamId: place.streamId,
    version: place.version,
    type: event.type,
    data,
    ...(attributes['metadata'] === undefined ? {} : { metadata: attributes['metadata'] as Record<string, unknown> }),
    timestamp: place.timestamp,
    ...(place.trace === undefined ? {} : { trace: place.trace }),
  };
  return withTrail(written, event.personal?.trail);
}

/**
 * Decodes one stored event into today's shape of its type: data stored at an older version of its type
 * (or under an alias) is parsed with that version's schema and upcast (see `versions`). Binary data may
 * come as bytes (SDK reads, GetRecords) or as a base64 string (Lambda and Pipes events). A broken event is
 * a {@link DecodeError}; an upcast that fails an `UpcastError`; a type version newer than this definition
 * knows an `EventVersionTooNewError`. Every reader decodes here.
 */
export function decodeStoredEvent(codec: EventCodec, attributes: Attributes, place: StoredEventPlace): StreamEvent {
  const { where, streamId, version } = place;
  const { type } = attributes;
  if (typeof type !== 'string') throw new DecodeError(`${where} lacks a string type.`, codec.streamName);
  const reading = codec.types.get(type);
  if (reading === undefined) {
    throw new DecodeError(
      `${where} has the unknown type "${type}": add it to the stream's events (as retiredEvent() if no longer appended, or as an alias in \`versions\` if renamed).`,
      codec.streamName,
    );
  }
  const storedVersion = attributes[Layout.typeVersion] ?? 1;
  if (typeof storedVersion !== 'number' || !Number.isInteger(storedVersion) || storedVersion < 1) {
    throw new DecodeError(
      `${where} has the type version ${storedValueText(storedVersion)}: an append only writes integers from 2.`,
      codec.streamName,
    );
  }
  let raw = attributes[Layout.encoding] === undefined ? attributes['data'] : decodeData(codec, attributes, where);
  // Personal fields are sealed apart from the data: opened (or redacted) before its schema reads it.
  const sealed = attributes[Layout.personal];
  const opened =
    sealed === undefined
      ? undefined
      : openSealedFields(codec.personal, raw, sealed, {
          where,
          streamName: codec.streamName,
          streamId,
          version,
          partitionKey: partitionKeyOf(codec.streamName, streamId),
          storedType: type,
          type: reading.type,
          storedVersion,
          todaysVersion: reading.version,
        });
  if (opened !== undefined) raw = opened.data;
  let data: unknown;
  if (storedVersion === reading.version && reading.retired === undefined) {
    // Today's version, the common case: one parse, as before types had versions.
    const parsed = reading.schema.safeParse(raw);
    data = parsed.success ? parsed.data : parsedData(where, codec.streamName, reading, raw);
  } else {
    data = toTodaysData(where, codec.streamName, reading, raw, { streamName: codec.streamName, streamId, version, type, storedVersion });
  }
  const metadata = attributes['metadata'];
  const event = {
    streamName: codec.streamName,
    streamId,
    version,
    type: reading.type,
    data,
    ...(metadata !== undefined && typeof metadata === 'object' && metadata !== null ? { metadata: metadata as Record<string, unknown> } : {}),
    timestamp: place.timestamp,
    ...(place.trace === undefined ? {} : { trace: place.trace }),
  };
  return withTrail(event, opened?.trail);
}

/** An event's sealed fields opened by the stream's hook; a stream that declares no personal data can't open them. */
function openSealedFields(personal: PersonalCodec | undefined, raw: unknown, sealed: unknown, ref: SealedEventRef) {
  if (personal === undefined) {
    throw new DecodeError(
      `${ref.where} holds sealed personal data, but stream ${ref.streamName} declares no \`personalData\`: declare it with the key table it was written with.`,
      ref.streamName,
    );
  }
  return personal.openFields(raw, sealed, ref);
}

function decodeData(codec: EventCodec, attributes: Attributes, where: string): unknown {
  const { data } = attributes;
  const encoding = attributes[Layout.encoding];
  const streamName = codec.streamName;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'base64') : data instanceof Uint8Array ? data : undefined;
  if (typeof encoding !== 'string') {
    const held = storedValueText(encoding);
    throw new DecodeError(
      `${where}: its compression attribute '${Layout.encoding}' holds ${held}, not an algorithm's name: an append never writes that.`,
      streamName,
    );
  }
  if (bytes === undefined) throw new DecodeError(`${where} is marked as ${encoding}-compressed but its data is not binary.`, streamName);
  try {
    return JSON.parse(decompress(bytes, encoding)) as unknown;
  } catch (cause) {
    throw new DecodeError(`${where} has ${encoding}-compressed data that does not decompress to JSON.`, streamName, [], { cause });
  }
}
