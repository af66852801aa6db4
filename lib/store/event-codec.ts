import type { z } from 'zod';
import { DecodeError, ValidationError, type ValidationIssue } from '../errors';
import { compress, decompress, type CompressionAlgorithm } from '../dynamo';
import { Layout, eventSortKey, partitionKeyOf } from './layout';
import { attributeIssues, describeDataIssues, jsonIssues } from './plain-data';
import type { EventSchemas, StreamEvent } from './types';
import { resolveTypeReadings, type EventTypeVersions, type TypeReading } from './event-versions';
import { toTodaysData } from './upcast';
import { appendedAtOf, eventKeysOf, storedValueText, whereItem } from './event-item-keys';

/** What encoding and decoding a stream's events needs to know. */
export interface EventCodec {
  readonly streamName: string;
  /** Today's schema of each event type. */
  readonly schemas: EventSchemas;
  /** How each name a stored event may carry (today's names and aliases) reads. */
  readonly types: ReadonlyMap<string, TypeReading>;
  readonly compression: false | { readonly algorithm: CompressionAlgorithm; readonly thresholdBytes: number };
}

/** A stream's codec; throws `ConfigurationError` for `versions` that can't be honoured. */
export function eventCodec(
  streamName: string,
  schemas: EventSchemas,
  compression: EventCodec['compression'],
  versions?: Readonly<Record<string, EventTypeVersions | undefined>>,
): EventCodec {
  return { streamName, schemas, types: resolveTypeReadings(streamName, schemas, versions), compression };
}

/** An event whose type is known and whose data passed its schema and can be stored as decided. */
export interface ValidEvent {
  readonly type: string;
  readonly data: unknown;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /** The data's JSON, and whether it is stored compressed (large, or not storable as a DynamoDB map). */
  readonly stored: { readonly json: string; readonly compressed: boolean };
}

export function zodIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: issue.message }));
}

/** Checks an event to append: a known type and data its schema accepts (the schema's output is stored). */
export function validateNewEvent(codec: EventCodec, event: unknown, index: number): ValidEvent {
  const candidate = (event ?? {}) as { type?: unknown; data?: unknown; metadata?: unknown };
  const reading = typeof candidate.type === 'string' && Object.hasOwn(codec.schemas, candidate.type) ? codec.types.get(candidate.type) : undefined;
  if (reading?.retired !== undefined) {
    throw new ValidationError(
      `Event ${index} of stream ${codec.streamName} has the type ${reading.type}, which is retired: its events are only read.`,
      [{ path: [index, 'type'], message: 'retired event type' }],
    );
  }
  const schema = reading?.schema;
  if (schema === undefined || typeof candidate.type !== 'string') {
    throw new ValidationError(
      `Event ${index} of stream ${codec.streamName} has the unknown type ${JSON.stringify(candidate.type)}: ` +
        `expected one of ${Object.keys(codec.schemas).join(', ')}.`,
      [{ path: [index, 'type'], message: 'unknown event type' }],
    );
  }
  const parsed = schema.safeParse(candidate.data);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    throw new ValidationError(
      `Event ${index} (${candidate.type}) of stream ${codec.streamName} is invalid: ${describeIssues(issues)}.`,
      issues.map((issue) => ({ ...issue, path: [index, 'data', ...issue.path] })),
      { cause: parsed.error },
    );
  }
  const where = `Event ${index} (${candidate.type}) of stream ${codec.streamName}`;
  const metadata = candidate.metadata;
  if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) {
    throw new ValidationError(`${where}: metadata must be an object.`, [{ path: [index, 'metadata'], message: 'not an object' }]);
  }
  return {
    type: candidate.type,
    data: parsed.data,
    ...(metadata === undefined ? {} : { metadata: metadata as Record<string, unknown> }),
    stored: storedForm(codec, where, index, parsed.data),
  };
}

/**
 * How event data is stored: as a map of its JSON form, so filter patterns and consoles can see into it,
 * unless it is larger than the compression threshold or holds what a DynamoDB map can't (numbers past
 * ±2^53, empty field names): then compressed, whatever its size, so the same data always gets the same
 * answer. Data JSON would change is refused, as is unstorable data when compression is off.
 */
function storedForm(codec: EventCodec, where: string, index: number, data: unknown): ValidEvent['stored'] {
  const notJson = jsonIssues(data, ['data']);
  if (notJson.length > 0) {
    throw new ValidationError(`${where} can't be stored: ${describeDataIssues(notJson)}. Event data must be plain JSON.`, prefixed(index, notJson));
  }
  const json = JSON.stringify(data ?? null);
  if (codec.compression !== false && Buffer.byteLength(json) > codec.compression.thresholdBytes) return { json, compressed: true };
  const unfit = attributeIssues(JSON.parse(json) as unknown, ['data']);
  if (unfit.length === 0) return { json, compressed: false };
  if (codec.compression !== false) return { json, compressed: true };
  throw new ValidationError(
    `${where} can't be stored as a DynamoDB map with compression off: ${describeDataIssues(unfit)}. Turn compression on (such data is then stored compressed), or change the data.`,
    prefixed(index, unfit),
  );
}

/** Checks metadata, stored as a DynamoDB map, before anything is sent. */
export function validateMetadata(codec: EventCodec, index: number, type: string, metadata: Readonly<Record<string, unknown>>): void {
  const issues = attributeIssues(metadata, ['metadata']);
  if (issues.length > 0) {
    throw new ValidationError(
      `Event ${index} (${type}) of stream ${codec.streamName} has metadata DynamoDB can't store: ${describeDataIssues(issues)}.`,
      prefixed(index, issues),
    );
  }
}

function prefixed(index: number, issues: ReadonlyArray<ValidationIssue>): ValidationIssue[] {
  return issues.map((issue) => ({ ...issue, path: [index, ...issue.path] }));
}

/** The item that stores `event` as version `version` of the stream instance `streamId`, appended at `appendedAt` (epoch ms). */
export function toEventItem(codec: EventCodec, streamId: string, version: number, event: ValidEvent, appendedAt: number): Record<string, unknown> {
  const item: Record<string, unknown> = {
    [Layout.partitionKey]: partitionKeyOf(codec.streamName, streamId),
    [Layout.sortKey]: eventSortKey(version),
    [Layout.eventMarker]: codec.streamName,
    type: event.type,
    [Layout.appendedAt]: appendedAt,
  };
  const typeVersion = codec.types.get(event.type)?.version ?? 1;
  if (typeVersion > 1) item[Layout.typeVersion] = typeVersion;
  const { json, compressed } = event.stored;
  if (compressed && codec.compression !== false) {
    item['data'] = compress(json, codec.compression.algorithm);
    item[Layout.encoding] = codec.compression.algorithm;
  } else {
    item['data'] = JSON.parse(json) as unknown;
  }
  if (event.metadata !== undefined) item['metadata'] = event.metadata;
  return item;
}

/**
 * The event an append just wrote, built from the validated event and its item without decoding the item
 * again: the data as stored (JSON-normalised), the id, version and time read as reads read them, so it
 * equals what a later read returns.
 */
export function writtenEvent(codec: EventCodec, item: Readonly<Record<string, unknown>>, event: ValidEvent): StreamEvent {
  return {
    streamName: codec.streamName,
    ...eventKeysOf(codec, item),
    type: event.type,
    data: item[Layout.encoding] === undefined ? item['data'] : (JSON.parse(event.stored.json) as unknown),
    ...(item['metadata'] === undefined ? {} : { metadata: item['metadata'] as Record<string, unknown> }),
    timestamp: appendedAtOf(codec, item),
  };
}

/**
 * Decodes an event item (already unmarshalled) of this stream into today's shape of its type: data stored
 * at an older version of its type (or under an alias) is parsed with that version's schema and upcast
 * (see `versions`). Binary data may come as bytes (SDK reads, GetRecords) or as a base64 string (Lambda
 * and Pipes events). A broken item is a {@link DecodeError}; an upcast that fails an `UpcastError`; a type
 * version newer than this definition knows an `EventVersionTooNewError`. The stream id and version come
 * from the item's keys and the time from `ts`; an item written by 0.2 (`streamId`, `version` and an ISO
 * `timestamp` of its own) reads as it did. Every reader decodes here.
 */
export function fromEventItem(codec: EventCodec, item: Readonly<Record<string, unknown>>): StreamEvent {
  const { streamId, version } = eventKeysOf(codec, item);
  const { type } = item;
  if (typeof type !== 'string') throw new DecodeError(`${whereItem(codec, item)} lacks a string type.`, codec.streamName);
  const reading = codec.types.get(type);
  if (reading === undefined) {
    throw new DecodeError(
      `${whereItem(codec, item)} has the unknown type "${type}": add it to the stream's events (as retiredEvent() if no longer appended, or as an alias in \`versions\` if renamed).`,
      codec.streamName,
    );
  }
  const storedVersion = item[Layout.typeVersion] ?? 1;
  if (typeof storedVersion !== 'number' || !Number.isInteger(storedVersion) || storedVersion < 1) {
    throw new DecodeError(
      `${whereItem(codec, item)} has the type version ${storedValueText(storedVersion)}: an append only writes integers from 2.`,
      codec.streamName,
    );
  }
  const raw = item[Layout.encoding] === undefined ? item['data'] : decodeData(codec, item);
  let data: unknown;
  if (storedVersion === reading.version && reading.retired === undefined) {
    // Today's version, the common case: one parse, as before types had versions.
    const parsed = reading.schema.safeParse(raw);
    data = parsed.success ? parsed.data : parsedData(codec, item, reading, raw);
  } else {
    data = toTodaysData(codec, item, reading, raw, { streamName: codec.streamName, streamId, version, type, storedVersion });
  }
  const metadata = item['metadata'];
  return {
    streamName: codec.streamName,
    streamId,
    version,
    type: reading.type,
    data,
    ...(metadata !== undefined && typeof metadata === 'object' && metadata !== null ? { metadata: metadata as Record<string, unknown> } : {}),
    timestamp: appendedAtOf(codec, item),
  };
}

/** Stored data parsed with its own version's schema: a refusal means the item is broken, a {@link DecodeError}. */
export function parsedData(
  codec: EventCodec,
  item: Readonly<Record<string, unknown>>,
  reading: { type: string; schema: z.ZodType },
  raw: unknown,
  storedVersion?: number,
): unknown {
  const parsed = reading.schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = zodIssues(parsed.error);
  const at = storedVersion === undefined ? '' : ` at type version ${storedVersion}`;
  throw new DecodeError(
    `${whereItem(codec, item)} (${reading.type}${at}) does not match its schema: ${describeIssues(issues)}.`,
    codec.streamName,
    issues,
    {
      cause: parsed.error,
    },
  );
}

export function describeIssues(issues: ReadonlyArray<ValidationIssue>): string {
  return issues.map((issue) => `${['data', ...issue.path].join('.')}: ${issue.message}`).join('; ');
}

function decodeData(codec: EventCodec, item: Readonly<Record<string, unknown>>): unknown {
  const { data } = item;
  const encoding = item[Layout.encoding];
  const streamName = codec.streamName;
  if (encoding === undefined) return data;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'base64') : data instanceof Uint8Array ? data : undefined;
  if (typeof encoding !== 'string') {
    const held = storedValueText(encoding);
    throw new DecodeError(
      `${whereItem(codec, item)}: its compression attribute '${Layout.encoding}' holds ${held}, not an algorithm's name: an append never writes that.`,
      streamName,
    );
  }
  if (bytes === undefined)
    throw new DecodeError(`${whereItem(codec, item)} is marked as ${encoding}-compressed but its data is not binary.`, streamName);
  try {
    return JSON.parse(decompress(bytes, encoding)) as unknown;
  } catch (cause) {
    throw new DecodeError(`${whereItem(codec, item)} has ${encoding}-compressed data that does not decompress to JSON.`, streamName, [], { cause });
  }
}
