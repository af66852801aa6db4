import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { localConfig } from './dynamo';

/**
 * Every record of a table's stream so far, read through the real Streams API of DynamoDB Local
 * (records of a write are readable right after it returns).
 */
export async function readStreamRecords(streamArn: string): Promise<_Record[]> {
  const streams = new DynamoDBStreamsClient(localConfig());
  try {
    const records: _Record[] = [];
    const description = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of description.StreamDescription?.Shards ?? []) {
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      let iterator = ShardIterator;
      while (iterator !== undefined) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        records.push(...(page.Records ?? []));
        if ((page.Records ?? []).length === 0) break; // an open shard: caught up
        iterator = page.NextShardIterator;
      }
    }
    return records;
  } finally {
    streams.destroy();
  }
}

/** The record as a Lambda event source mapping delivers it: JSON, so binary attributes become base64 strings. */
export function asLambdaRecord(record: _Record): DynamoDBRecord {
  return JSON.parse(
    // `this[key]` is the value before its own toJSON ran: a Date becomes Lambda's epoch seconds, not an ISO string.
    JSON.stringify(record, function (this: Record<string, unknown>, key: string, value: unknown) {
      const original = this[key];
      if (original instanceof Date) return original.getTime() / 1000;
      return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : value;
    }),
  ) as DynamoDBRecord;
}

/** Records of event INSERTs only (the table also streams read-model writes when they share it). */
export function insertsOnly(records: ReadonlyArray<_Record>): _Record[] {
  return records.filter((record) => record.eventName === 'INSERT' && record.dynamodb?.NewImage?.['_df'] !== undefined);
}
