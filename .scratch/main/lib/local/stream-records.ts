import type { DynamoDBStreamsClient, _Record } from '@aws-sdk/client-dynamodb-streams';
import { createHash } from 'node:crypto';
import type { LambdaKinesisRecord, LambdaStreamRecord } from '../lambda';

/**
 * Every record still in a table's stream (see `readStreamRecords` of `dynafold/feed`), for tests that
 * deliver real records the way Lambda would. The Streams client is loaded on the first call, not when
 * `dynafold/local` is.
 *
 * @example
 * ```ts
 * const records = await readStreamRecords(new DynamoDBStreamsClient(local.clientConfig), streamArn)
 * await handler({ Records: records.map(toLambdaRecord) })
 * ```
 */
export async function readStreamRecords(streams: DynamoDBStreamsClient, streamArn: string): Promise<_Record[]> {
  const feed = await import('../feed');
  return feed.readStreamRecords(streams, streamArn);
}

/**
 * A GetRecords record as a Lambda event source mapping hands it over: JSON, with binary attributes as
 * base64 strings and `ApproximateCreationDateTime` as epoch seconds, plus the fields Lambda adds.
 */
export function toLambdaRecord(
  record: _Record,
  source: { readonly streamArn?: string | undefined; readonly region?: string | undefined } = {},
): LambdaStreamRecord {
  const json = JSON.stringify(record, function (this: Record<string, unknown>, key: string, value: unknown) {
    // `this[key]` is the value before its own toJSON ran, so a Date is still a Date here.
    const original = this[key];
    if (original instanceof Date) return original.getTime() / 1000;
    return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : value;
  });
  return {
    ...(JSON.parse(json) as LambdaStreamRecord),
    eventSource: 'aws:dynamodb',
    ...(source.region === undefined ? {} : { awsRegion: source.region }),
    ...(source.streamArn === undefined ? {} : { eventSourceARN: source.streamArn }),
  };
}

/**
 * A GetRecords record as a Kinesis Data Streams event source mapping hands it over when the table streams
 * its changes to Kinesis: the DynamoDB change record (Kinesis' format: millisecond creation time, the
 * table's name, no stream sequence number) as base64 JSON in `kinesis.data`, under a Kinesis sequence
 * number made from the stream's. For tests of `kinesisHandler` with real stream images.
 */
export function toKinesisRecord(
  record: _Record,
  source: { readonly streamArn?: string | undefined; readonly region?: string | undefined; readonly tableName?: string | undefined } = {},
): LambdaKinesisRecord {
  const lambda = toLambdaRecord(record, source);
  const { SequenceNumber: sequence = '0', StreamViewType: _viewType, ApproximateCreationDateTime: seconds = 0, ...change } = lambda.dynamodb ?? {};
  const dynamodb = { ...change, ApproximateCreationDateTime: Math.round(seconds * 1000), ApproximateCreationDateTimePrecision: 'MILLISECOND' };
  const data = {
    awsRegion: source.region ?? 'ddblocal',
    eventID: lambda.eventID,
    eventName: lambda.eventName,
    userIdentity: null,
    recordFormat: 'application/json',
    tableName: source.tableName,
    dynamodb,
    eventSource: 'aws:dynamodb',
  };
  const sequenceNumber = sequence.padStart(56, '4');
  return {
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `shardId-000000000000:${sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    ...(source.region === undefined ? {} : { awsRegion: source.region }),
    ...(source.streamArn === undefined ? {} : { eventSourceARN: source.streamArn }),
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: createHash('md5')
        .update(JSON.stringify(change.Keys ?? {}))
        .digest('hex')
        .toUpperCase(),
      sequenceNumber,
      data: Buffer.from(JSON.stringify(data)).toString('base64'),
      approximateArrivalTimestamp: seconds,
    },
  };
}
