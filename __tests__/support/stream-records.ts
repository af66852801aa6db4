import { DynamoDBStreamsClient, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { readStreamRecords as readAll, toLambdaRecord } from 'dynafold/local';
import type { DynamoDBRecord } from 'aws-lambda';
import { localConfig } from './dynamo';

/** Every record of a table's stream so far, read through the real Streams API of DynamoDB Local. */
export async function readStreamRecords(streamArn: string): Promise<_Record[]> {
  const streams = new DynamoDBStreamsClient(localConfig());
  try {
    return await readAll(streams, streamArn);
  } finally {
    streams.destroy();
  }
}

/** The record as a Lambda event source mapping delivers it (binary as base64, dates as epoch seconds). */
export function asLambdaRecord(record: _Record): DynamoDBRecord {
  return toLambdaRecord(record);
}

/** Records of event INSERTs only (the table also streams read-model writes when they share it). */
export function insertsOnly(records: ReadonlyArray<_Record>): _Record[] {
  return records.filter((record) => record.eventName === 'INSERT' && record.dynamodb?.NewImage?.['_df'] !== undefined);
}

/**
 * The stream id and version an event's image holds, read from its keys (`pk` is `<stream>#<id>`, `sk` is
 * `e#` and the version), for picking records out of a stream: event items hold them nowhere else.
 */
export function eventKeysOf(image: Readonly<Record<string, { readonly S?: string | undefined }>> | undefined): {
  streamId: string | undefined;
  version: number | undefined;
} {
  const prefix = `${image?.['_df']?.S ?? ''}#`;
  const pk = image?.['pk']?.S;
  const sk = image?.['sk']?.S;
  return {
    streamId: image?.['_df']?.S !== undefined && pk?.startsWith(prefix) === true ? pk.slice(prefix.length) : undefined,
    version: sk?.startsWith('e#') === true ? Number(sk.slice('e#'.length)) : undefined,
  };
}
