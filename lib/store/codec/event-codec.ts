import { ValidationError, type ValidationIssue } from '../../errors';
import type { CompressionAlgorithm } from '../../dynamo';
import { attributeIssues, describeDataIssues, jsonIssues } from '../plain-data';
import type { EventSchemas } from '../types';
import { resolveTypeReadings, type EventTypeVersions, type TypeReading } from './event-versions';
import { describeIssues, zodIssues } from '../schema-issues';
import type { PersonalCodec, SealedPersonal } from '../../personal';

/** What encoding and decoding a stream's events needs to know. */
export interface EventCodec {
  readonly streamName: string;
  /** Today's schema of each event type. */
  readonly schemas: EventSchemas;
  /** How each name a stored event may carry (today's names and aliases) reads. */
  readonly types: ReadonlyMap<string, TypeReading>;
  readonly compression: false | { readonly algorithm: CompressionAlgorithm; readonly thresholdBytes: number };
  /** The stream's personal data (`personalData`): what appends seal and reads open. */
  readonly personal?: PersonalCodec | undefined;
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
  /** Its personal fields, sealed (then left out of `stored`), when the stream declares any for its type. */
  readonly personal?: SealedPersonal | undefined;
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
export function storedForm(codec: EventCodec, where: string, index: number, data: unknown): ValidEvent['stored'] {
  const notJson = jsonIssues(data, ['data']);
  if (notJson.length > 0) {
    throw new ValidationError(`${where} can't be stored: ${describeDataIssues(notJson)}. Event data must be plain JSON.`, prefixed(index, notJson));
  }
  const json = JSON.stringify(data ?? null);
  if (codec.compression !== false && Buffer.byteLength(json) > codec.compression.thresholdBytes) return { json, compressed: true };
  // Data JSON keeps as it is (checked above) is its JSON form: checked as it is, without parsing the JSON back.
  const unfit = attributeIssues(data, ['data']);
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
