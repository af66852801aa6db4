/**
 * A table's stream records read with the DynamoDB Streams API, and turned into what a Lambda event
 * source mapping delivers.
 */
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';

/**
 * Every record still in the stream: DescribeStream (paginated), then each shard from TRIM_HORIZON with
 * GetRecords until it is drained. An open shard never ends, so an empty page means caught up.
 */
export async function readStreamRecords(streams: DynamoDBStreamsClient, streamArn: string): Promise<_Record[]> {
  const records: _Record[] = [];
  let exclusiveStartShardId: string | undefined;
  do {
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn, ...(exclusiveStartShardId === undefined ? {} : { ExclusiveStartShardId: exclusiveStartShardId }) }),
    );
    for (const shard of StreamDescription?.Shards ?? []) {
      const start = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }));
      let iterator = start.ShardIterator;
      while (iterator !== undefined) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        const got = page.Records ?? [];
        records.push(...got);
        iterator = got.length === 0 ? undefined : page.NextShardIterator;
      }
    }
    exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
  } while (exclusiveStartShardId !== undefined);
  return records;
}

/**
 * A record as Lambda hands it to a function: JSON, so binary attributes are base64 strings and
 * `ApproximateCreationDateTime` is epoch seconds; plus the fields Lambda adds.
 */
export function toLambdaRecord(record: _Record, streamArn: string, region: string): DynamoDBRecord {
  const json = JSON.stringify(record, function (this: Record<string, unknown>, key: string, value: unknown) {
    // `this[key]` is the value before its own toJSON ran (a Date would already be an ISO string).
    const original = this[key];
    if (original instanceof Date) return original.getTime() / 1000;
    if (original instanceof Uint8Array) return Buffer.from(original).toString('base64');
    return value;
  });
  return { ...(JSON.parse(json) as DynamoDBRecord), eventSource: 'aws:dynamodb', awsRegion: region, eventSourceARN: streamArn };
}
