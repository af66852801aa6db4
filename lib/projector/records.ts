import { DecodeError } from '../errors';
import type { StreamImage } from '../store';

/** The parts of a DynamoDB Streams record we read: Lambda's, Pipes' and GetRecords' records all have them. */
export interface StreamRecordLike {
  readonly eventID?: string;
  readonly eventName?: string;
  readonly dynamodb?: { readonly SequenceNumber?: string; readonly NewImage?: StreamImage | Readonly<Record<string, unknown>> };
}

/** Who reads the partial batch response, which decides the record identifier. */
export type RecordSource = 'lambda' | 'pipe';

/**
 * How records are read: `source` for Lambda (`dynamodb.SequenceNumber`) or Pipes (`eventID`), or
 * `image` + `identifier` functions for a record shape of your own (a Pipe input template's, say).
 */
export interface RecordReading<R = StreamRecordLike> {
  /** @defaultValue 'lambda' */
  readonly source?: RecordSource;
  /** The new image of an event INSERT, or `undefined` for a record that is none. */
  readonly image?: (record: R) => StreamImage | undefined;
  /** The identifier the source expects in `batchItemFailures`. */
  readonly identifier?: (record: R) => string | undefined;
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
    throw new DecodeError('An INSERT record has no dynamodb.NewImage: the table stream must include new images (NEW_IMAGE or NEW_AND_OLD_IMAGES).', undefined);
  }
  return image;
}

/** The function reading a record's image under these options. */
export function imageReader<R>(reading: RecordReading<R>): (record: R) => StreamImage | undefined {
  return reading.image ?? insertImage;
}

/** The function reading a record's identifier under these options. */
export function identifierReader<R>(reading: RecordReading<R>): (record: R) => string | undefined {
  if (reading.identifier !== undefined) return reading.identifier;
  return (reading.source ?? 'lambda') === 'pipe'
    ? (record) => (record as StreamRecordLike | undefined)?.eventID
    : (record) => (record as StreamRecordLike | undefined)?.dynamodb?.SequenceNumber;
}
