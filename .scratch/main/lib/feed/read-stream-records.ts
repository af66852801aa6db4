import type { DynamoDBStreamsClient, _Record } from '@aws-sdk/client-dynamodb-streams';
import { type ShardPosition, classifyFailure, StreamsApi, TRIMMED_RETAKES, judgeTrimmedRead } from './shards';
import { Semaphore } from '../util';

/**
 * Every record still in a table's stream, read with the DynamoDB Streams API: DescribeStream (paginated),
 * then each shard from TRIM_HORIZON until it is drained or, for an open shard, caught up (an empty page).
 * Throttling is retried, and a trimmed answer is judged as the change feed judges it. For tests and tools
 * that deliver real records the way Lambda would.
 *
 * @example
 * ```ts
 * const records = await readStreamRecords(new DynamoDBStreamsClient(local.clientConfig), streamArn)
 * await handler({ Records: records.map(toLambdaRecord) })
 * ```
 */
export async function readStreamRecords(streams: DynamoDBStreamsClient, streamArn: string): Promise<_Record[]> {
  const api = new StreamsApi({
    client: streams,
    streamArn,
    reads: new Semaphore(1),
    backoff: { initialMs: 10, maxMs: 500 },
    signal: new AbortController().signal,
    logger: undefined,
  });
  const records: _Record[] = [];
  for (const shard of (await api.describe()).shards) records.push(...(await readShardToEnd(api, shard.shardId)));
  return records;
}

async function readShardToEnd(api: StreamsApi, shardId: string): Promise<_Record[]> {
  const records: _Record[] = [];
  let position: ShardPosition = { type: 'TRIM_HORIZON' };
  let iterator: string | undefined;
  for (let trimmed = 0; ;) {
    try {
      iterator ??= await api.shardIterator(shardId, position);
      if (iterator === undefined) return records;
      const page = await api.records(iterator, 1000);
      records.push(...page.records);
      const last = page.records[page.records.length - 1]?.dynamodb?.SequenceNumber;
      if (last !== undefined) position = { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: last };
      // Caught up with an open shard, or a closed one drained.
      if (page.records.length === 0 || page.next === undefined) return records;
      iterator = page.next;
      trimmed = 0;
    } catch (error) {
      if (classifyFailure(error) !== 'trimmed' || ++trimmed > TRIMMED_RETAKES) throw error;
      const verdict = await judgeTrimmedRead(api, shardId, position);
      if (verdict.kind === 'lost') throw error;
      position = verdict.position;
      iterator = undefined;
    }
  }
}
