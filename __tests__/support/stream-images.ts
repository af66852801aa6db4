import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import { localConfig } from './dynamo';

/** A stream image as the SDK's GetRecords returns it: binary attributes as bytes. */
export type SdkImage = NonNullable<NonNullable<_Record['dynamodb']>['NewImage']>;

/**
 * Every record currently in a table's stream, read with the real Streams API (DescribeStream,
 * GetShardIterator from TRIM_HORIZON, GetRecords until a shard has nothing more to give).
 */
export async function readStreamRecords(streamArn: string): Promise<_Record[]> {
  const streams = new DynamoDBStreamsClient(localConfig());
  try {
    const records: _Record[] = [];
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      let { ShardIterator: iterator } = await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      while (iterator !== undefined) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        records.push(...(page.Records ?? []));
        // An open shard always hands out a next iterator: stop at the first empty page.
        iterator = (page.Records ?? []).length === 0 ? undefined : page.NextShardIterator;
      }
    }
    return records;
  } finally {
    streams.destroy();
  }
}

/**
 * The image as a Lambda (or Pipes) event carries it: the record is JSON, so binary attributes arrive as
 * base64 strings.
 */
export function lambdaImage(image: SdkImage): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(image, function (this: Record<string, unknown>, key: string, value: unknown) {
      const raw = this[key];
      return raw instanceof Uint8Array ? Buffer.from(raw).toString('base64') : value;
    }),
  ) as Record<string, unknown>;
}
