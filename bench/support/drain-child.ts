/**
 * One drain of a stream backlog, in a process of its own so its peak RSS is its own. Reads its job from
 * the BENCH_DRAIN environment variable and prints one JSON line: events, milliseconds, memory, requests.
 * Modes: `feed` (runChangeFeed into a projection), `raw` (a GetRecords loop into the same projection),
 * `read` (a GetRecords loop that only reads).
 */
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { processBatch } from 'dynafold/lambda';
import { ChangeFeedConsumer, DynamoCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { childJob, type JobResult, type MemoryFigures } from './child-job';
import { clients, type Endpoint } from './local';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
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
  /** The events drained (a record holds an append's events). */
  readonly events: number;
}

childJob<DrainJob, Omit<DrainResult, keyof MemoryFigures>>(
  'BENCH_DRAIN',
  async (job) => {
    const c = clients(job.endpoint);
    const projection = summaryProjection(orderStream(c.client, job.eventsTable), summaries(c.client, job.viewsTable, job.model));
    let events = 0;
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
        projections: [projection],
        onBatch: (_result, batch) => {
          events += eventsIn(batch.records);
          if (events >= job.expected) void feed.stop();
        },
      });
    } else {
      const description = await c.streams.send(new DescribeStreamCommand({ StreamArn: job.streamArn }));
      for (const shard of description.StreamDescription?.Shards ?? []) {
        const first = await c.streams.send(
          new GetShardIteratorCommand({ StreamArn: job.streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
        );
        let iterator = first.ShardIterator;
        while (iterator !== undefined && events < job.expected) {
          const page = await c.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: job.batchSize }));
          const batch = page.Records ?? [];
          if (job.mode === 'raw' && batch.length > 0) {
            const result = await processBatch(batch, { projections: [projection], source: 'lambda' });
            if (result.response.batchItemFailures.length > 0) throw new Error('drain: a record failed');
          }
          events += eventsIn(batch);
          iterator = page.NextShardIterator;
        }
      }
    }
    const ms = performance.now() - start;
    const requests = { ...c.meter.snapshot().requests, ...c.streamsMeter.snapshot().requests };
    c.destroy();
    return { mode: job.mode, events, ms, requests };
  },
  { sampleLiveHeap: false },
);

/** The events the records hold: a record of an event INSERT is an append's commit, of one event or of `count`. */
function eventsIn(records: ReadonlyArray<_Record>): number {
  let events = 0;
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName === 'INSERT' && image?.['_df'] !== undefined) events += Number(image['count']?.N ?? 1);
  }
  return events;
}
