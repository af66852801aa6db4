import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type StreamDescription,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';

const PAGE = 1000;

/** What one pull of DynamoDB Local's stream brought: new records in order, and whether the stream ended. */
export interface Pulled {
  readonly records: ReadonlyArray<_Record>;
  readonly ended: boolean;
}

/**
 * Reads the real stream of a table on DynamoDB Local from its trim horizon, record after record, following
 * its shard (and a child, should DynamoDB Local roll it over). The simulation re-shards what it reads.
 * An iterator DynamoDB Local answers with TrimmedDataAccessException (which it does for an iterator taken
 * on an empty shard once another table was written) is taken again after the last record read.
 */
export class LocalStreamSource {
  private shardId: string | undefined;
  private iterator: string | undefined;
  private last: string | undefined;
  private ended = false;

  constructor(
    private readonly client: DynamoDBStreamsClient,
    readonly streamArn: string,
  ) {}

  /** The stream's description on DynamoDB Local (its ARN, table, key schema, view type). */
  async describe(): Promise<StreamDescription> {
    const { StreamDescription: description } = await this.client.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    if (description === undefined) throw new Error(`DynamoDB Local did not describe ${this.streamArn}`);
    return description;
  }

  /** Everything written since the last pull. One pull at a time: the caller takes what it returns. */
  async pull(): Promise<Pulled> {
    const records: _Record[] = [];
    while (!this.ended) {
      const page = await this.page();
      if (page === undefined) break;
      records.push(...page);
      // A short page means nothing more was there a moment ago: stop, or a pull would chase ongoing writes.
      if (page.length < PAGE) break;
    }
    return { records, ended: this.ended };
  }

  /** One page; undefined when there is no shard to read yet. */
  private async page(): Promise<_Record[] | undefined> {
    if (this.shardId === undefined && !(await this.nextShard())) return undefined;
    const answer = await this.getRecords();
    const records = answer.Records ?? [];
    this.last = records.at(-1)?.dynamodb?.SequenceNumber ?? this.last;
    this.iterator = answer.NextShardIterator;
    if (this.iterator === undefined && !(await this.nextShard())) this.ended = true;
    return records;
  }

  private async getRecords(): Promise<{ Records?: _Record[]; NextShardIterator?: string }> {
    for (let attempt = 0; ; attempt++) {
      this.iterator ??= await this.takeIterator();
      try {
        return await this.client.send(new GetRecordsCommand({ ShardIterator: this.iterator, Limit: PAGE }));
      } catch (error) {
        const stale = error instanceof Error && (error.name === 'TrimmedDataAccessException' || error.name === 'ExpiredIteratorException');
        if (!stale || attempt >= 3) throw error;
        this.iterator = undefined;
      }
    }
  }

  private async takeIterator(): Promise<string | undefined> {
    const position =
      this.last === undefined
        ? { ShardIteratorType: 'TRIM_HORIZON' as const }
        : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: this.last };
    const answer = await this.client.send(new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: this.shardId, ...position }));
    return answer.ShardIterator;
  }

  /** Moves to the first shard, or to the child of the drained one; false when there is none. */
  private async nextShard(): Promise<boolean> {
    const shards = (await this.describe()).Shards ?? [];
    const next =
      this.shardId === undefined ? shards.find((s) => s.ParentShardId === undefined) : shards.find((s) => s.ParentShardId === this.shardId);
    if (next?.ShardId === undefined) return false;
    this.shardId = next.ShardId;
    this.iterator = undefined;
    this.last = undefined;
    return true;
  }
}
