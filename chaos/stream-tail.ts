import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { ClientConfig } from './world';

/**
 * A table's stream read as it grows: each poll returns the records written since the last one, every shard
 * read on from its last record (AFTER_SEQUENCE_NUMBER), over one Streams client for the tail's life.
 * Re-reading the whole stream from TRIM_HORIZON on a new client at every poll (every 5 to 30 ms) made an
 * outbox schedule slower the longer its stream grew. DynamoDB Local lists a table's shards in one page.
 */
export class StreamTail {
  private readonly streams: DynamoDBStreamsClient;
  private readonly lastSequenceNumbers = new Map<string, string>();

  constructor(
    config: ClientConfig,
    private readonly streamArn: string,
  ) {
    this.streams = new DynamoDBStreamsClient({ endpoint: config.endpoint, region: config.region, credentials: config.credentials });
  }

  /** The records written since the last poll, in order per shard. */
  async poll(): Promise<_Record[]> {
    const { StreamDescription } = await this.streams.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    const fresh: _Record[] = [];
    for (const { ShardId: shardId } of StreamDescription?.Shards ?? []) {
      if (shardId !== undefined) fresh.push(...(await this.readOn(shardId)));
    }
    return fresh;
  }

  close(): void {
    this.streams.destroy();
  }

  private async readOn(shardId: string): Promise<_Record[]> {
    const after = this.lastSequenceNumbers.get(shardId);
    const position =
      after === undefined
        ? { ShardIteratorType: 'TRIM_HORIZON' as const }
        : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: after };
    let { ShardIterator: iterator } = await this.streams.send(
      new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ...position }),
    );
    const records: _Record[] = [];
    while (iterator !== undefined) {
      const page = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      const got = page.Records ?? [];
      records.push(...got);
      const last = got.at(-1)?.dynamodb?.SequenceNumber;
      if (last !== undefined) this.lastSequenceNumbers.set(shardId, last);
      // An open shard always hands out a next iterator: stop at the first empty page.
      iterator = got.length === 0 ? undefined : page.NextShardIterator;
    }
    return records;
  }
}
