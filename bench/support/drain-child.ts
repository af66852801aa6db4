/**
 * One drain of a stream backlog, in a process of its own so its peak RSS is its own. Reads its job from
 * the BENCH_DRAIN environment variable and prints one JSON line: records, milliseconds, memory, requests.
 * Modes: `feed` (runChangeFeed into a projection), `raw` (a GetRecords loop into the same projection),
 * `read` (a GetRecords loop that only reads).
 */
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { processBatch } from 'dynafold/lambda';
import { ChangeFeedConsumer, DynamoCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { childJob, type JobResult, type MemoryFigures } from './child-job';
import { clients, type Endpoint } from './local';
import { orderStream, summaries, summaryProjection } from './orders';

export interface DrainJob {
  readonly mode: 'feed' | 'raw' | 'read';
  readonly endpoint: Endpoint;
  readonly streamArn: string;
  readonly eventsTable: string;
  readonly viewsTable: string;
  readonly checkpointsTable: string;
  readonly model: string;
  readonly expected: number;
  readonly batchSize: number;
}

export interface DrainResult extends JobResult {
  readonly records: number;
}

childJob<DrainJob, Omit<DrainResult, keyof MemoryFigures>>(
  'BENCH_DRAIN',
  async (job) => {
    const c = clients(job.endpoint);
    const projection = summaryProjection(orderStream(c.client, job.eventsTable), summaries(c.client, job.viewsTable, job.model));
    let records = 0;
    const start = performance.now();
    if (job.mode === 'feed') {
      const feed = new ChangeFeedConsumer({
        streamsClient: c.streams,
        streamArn: job.streamArn,
        consumer: job.model,
        checkpoints: new DynamoCheckpointStore({ client: c.client, table: job.checkpointsTable }),
        batchSize: job.batchSize,
        pollIntervalMs: 100,
      });
      await runChangeFeed(feed, {
        projections: { summaries: projection },
        onBatch: (_result, batch) => {
          records += batch.records.length;
          if (records >= job.expected) void feed.stop();
        },
      });
    } else {
      const description = await c.streams.send(new DescribeStreamCommand({ StreamArn: job.streamArn }));
      for (const shard of description.StreamDescription?.Shards ?? []) {
        const first = await c.streams.send(
          new GetShardIteratorCommand({ StreamArn: job.streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
        );
        let iterator = first.ShardIterator;
        while (iterator !== undefined && records < job.expected) {
          const page = await c.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: job.batchSize }));
          const batch = page.Records ?? [];
          if (job.mode === 'raw' && batch.length > 0) {
            const result = await processBatch(batch, { projections: { summaries: projection }, source: 'lambda' });
            if (result.response.batchItemFailures.length > 0) throw new Error('drain: a record failed');
          }
          records += batch.length;
          iterator = page.NextShardIterator;
        }
      }
    }
    const ms = performance.now() - start;
    const requests = { ...c.meter.snapshot().requests, ...c.streamsMeter.snapshot().requests };
    c.destroy();
    return { mode: job.mode, records, ms, requests };
  },
  { sampleLiveHeap: false },
);
