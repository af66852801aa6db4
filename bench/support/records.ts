import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';

/** Every record of a stream so far, read through the real Streams API (a write's records are readable when it returns). */
export async function readAllRecords(streams: DynamoDBStreamsClient, streamArn: string): Promise<_Record[]> {
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
}

/** The record as a Lambda event source mapping hands it over: JSON, binary as base64, dates as epoch seconds. */
export function asLambdaRecord(record: _Record): DynamoDBRecord {
  return JSON.parse(
    JSON.stringify(record, function (this: Record<string, unknown>, key: string, value: unknown) {
      const original = this[key];
      if (original instanceof Date) return original.getTime() / 1000;
      return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : value;
    }),
  ) as DynamoDBRecord;
}

/** The stream id and version an event INSERT carries, read straight from its keys' image. */
export function eventOf(record: DynamoDBRecord | _Record): { streamId: string; version: number } | undefined {
  const image = record.dynamodb?.NewImage as Record<string, { S?: string; N?: string }> | undefined;
  if (record.eventName !== 'INSERT' || image?.['_df']?.S !== 'Order') return undefined;
  return { streamId: image['streamId']?.S ?? '', version: Number(image['version']?.N) };
}

export function sequenceOf(record: DynamoDBRecord | _Record): string {
  return record.dynamodb?.SequenceNumber ?? '';
}
