import { DecodeError } from '../errors';
import type { StreamImage } from '../store';

/** The parts of a DynamoDB Streams record we read: Lambda's, Pipes' and GetRecords' records all have them. */
export interface StreamRecordLike {
  readonly eventID?: string | undefined;
  readonly eventName?: string | undefined;
  readonly dynamodb?:
    { readonly SequenceNumber?: string | undefined; readonly NewImage?: StreamImage | Readonly<Record<string, unknown>> | undefined } | undefined;
}

/**
 * Where the records come from, which decides how they are read and identified: `lambda` (a DynamoDB
 * Streams event source mapping: `dynamodb.SequenceNumber`), `pipe` (EventBridge Pipes: `eventID`) or
 * `kinesis` (Kinesis Data Streams for DynamoDB: the change record is `kinesis.data`, base64 JSON, and
 * the identifier `kinesis.sequenceNumber`).
 */
export type RecordSource = 'lambda' | 'pipe' | 'kinesis';

/**
 * How records are read: `source` for Lambda (`dynamodb.SequenceNumber`) or Pipes (`eventID`), or
 * `image` + `identifier` functions for a record shape of your own (a Pipe input template's, say).
 */
export interface RecordReading<R = StreamRecordLike> {
  /** @defaultValue 'lambda' */
  readonly source?: RecordSource | undefined;
  /** The new image of an event INSERT, or `undefined` for a record that is none. */
  readonly image?: ((record: R) => StreamImage | undefined) | undefined;
  /** The identifier the source expects in `batchItemFailures`. */
  readonly identifier?: ((record: R) => string | undefined) | undefined;
}

/** A record whose image could not be decoded. */
export interface DecodeFailure<R = StreamRecordLike> {
  readonly position: number;
  readonly record: R;
  readonly error: unknown;
}

/** The image to decode of a standard stream record: INSERTs only; an INSERT without a new image can't be decoded. */
export function insertImage(record: unknown): StreamImage | undefined {
  if (typeof record !== 'object' || record === null) throw new DecodeError('The record is not a DynamoDB stream record object.', undefined);
  const { eventName, dynamodb } = record as StreamRecordLike;
  if (eventName !== 'INSERT') return undefined;
  const image = dynamodb?.NewImage;
  if (typeof image !== 'object' || image === null) {
    throw new DecodeError(
      'An INSERT record has no dynamodb.NewImage: the table stream must include new images (NEW_IMAGE or NEW_AND_OLD_IMAGES).',
      undefined,
    );
  }
  return image;
}

/** The `kinesis` part of a Kinesis Data Streams record, as Lambda hands it over. */
interface KinesisPart {
  readonly kinesis?: { readonly data?: unknown; readonly sequenceNumber?: unknown; readonly approximateArrivalTimestamp?: unknown } | undefined;
}

/** The DynamoDB change record a Kinesis Data Streams record carries (base64 JSON in `kinesis.data`). */
export function kinesisChange(record: unknown): unknown {
  const data = (record as KinesisPart | undefined)?.kinesis?.data;
  if (typeof data !== 'string') throw new DecodeError('The record has no kinesis.data: is this a Kinesis Data Streams record?', undefined);
  try {
    return JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as unknown;
  } catch (error) {
    throw new DecodeError('The kinesis.data of the record is not the base64 JSON of a DynamoDB change record.', undefined, [], { cause: error });
  }
}

/** The function reading a record's image under these options. */
export function imageReader<R>(reading: RecordReading<R>): (record: R) => StreamImage | undefined {
  if (reading.image !== undefined) return reading.image;
  return reading.source === 'kinesis' ? (record) => insertImage(kinesisChange(record)) : insertImage;
}

/** The function reading a record's identifier under these options. */
export function identifierReader<R>(reading: RecordReading<R>): (record: R) => string | undefined {
  if (reading.identifier !== undefined) return reading.identifier;
  switch (reading.source ?? 'lambda') {
    case 'pipe':
      return (record) => (record as StreamRecordLike | undefined)?.eventID;
    case 'kinesis':
      return (record) => {
        const sequenceNumber = (record as KinesisPart | undefined)?.kinesis?.sequenceNumber;
        return typeof sequenceNumber === 'string' ? sequenceNumber : undefined;
      };
    case 'lambda':
      return (record) => (record as StreamRecordLike | undefined)?.dynamodb?.SequenceNumber;
  }
}

/** When a record reached its stream, in epoch milliseconds, if it says. */
export function recordTime(record: unknown): number | undefined {
  const arrived = (record as KinesisPart | undefined)?.kinesis?.approximateArrivalTimestamp;
  if (typeof arrived === 'number') return arrived * 1000;
  const created = (record as { dynamodb?: { ApproximateCreationDateTime?: unknown } | undefined } | undefined)?.dynamodb?.ApproximateCreationDateTime;
  // A Date from GetRecords, epoch seconds from Lambda.
  return created instanceof Date ? created.getTime() : typeof created === 'number' ? created * 1000 : undefined;
}
