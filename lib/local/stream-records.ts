import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';

/**
 * Every record still in a table's stream, read with the DynamoDB Streams API: DescribeStream (paginated),
 * then each shard from TRIM_HORIZON until it is drained or, for an open shard, caught up (an empty page).
 * For tests and tools that deliver real records the way Lambda would.
 *
 * @example
 * ```ts
 * const records = await readStreamRecords(new DynamoDBStreamsClient(local.clientConfig), streamArn)
 * await handler({ Records: records.map(toLambdaRecord) })
 * ```
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
        if (got.length === 0) break;
        iterator = page.NextShardIterator;
      }
    }
    exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
  } while (exclusiveStartShardId !== undefined);
  return records;
}

/**
 * A GetRecords record as a Lambda event source mapping hands it over: JSON, with binary attributes as
 * base64 strings and `ApproximateCreationDateTime` as epoch seconds, plus the fields Lambda adds.
 */
export function toLambdaRecord(record: _Record, source: { readonly streamArn?: string; readonly region?: string } = {}): DynamoDBRecord {
  const json = JSON.stringify(record, function (this: Record<string, unknown>, key: string, value: unknown) {
    // `this[key]` is the value before its own toJSON ran, so a Date is still a Date here.
    const original = this[key];
    if (original instanceof Date) return original.getTime() / 1000;
    return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : value;
  });
  return {
    ...(JSON.parse(json) as DynamoDBRecord),
    eventSource: 'aws:dynamodb',
    ...(source.region === undefined ? {} : { awsRegion: source.region }),
    ...(source.streamArn === undefined ? {} : { eventSourceARN: source.streamArn }),
  };
}
