/**
 * One drain of a stream backlog, in a process of its own so its peak RSS is its own. Reads its job from
 * the BENCH_DRAIN environment variable and prints one JSON line: records, milliseconds, peak RSS.
 * Modes: `feed` (runChangeFeed into a projection), `raw` (a GetRecords loop into the same projection),
 * `read` (a GetRecords loop that only reads).
 */
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { processBatch } from '../../lib';
import { ChangeFeedConsumer, DynamoCheckpointStore, runChangeFeed } from '../../lib/feed';
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

export interface DrainResult {
  readonly mode: string;
  readonly records: number;
  readonly ms: number;
  readonly peakRssMb: number;
  /** The heap still in use after a full collection at the end: what the drain retained. */
  readonly heapAfterGcMb: number;
  readonly requests: Record<string, number>;
}

async function main(): Promise<void> {
  const job = JSON.parse(process.env['BENCH_DRAIN'] ?? '{}') as DrainJob;
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
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
      onBatch: (batch) => {
        records += batch.records.length;
        if (records >= job.expected) void feed.stop();
      },
    });
  } else {
    const description = await c.streams.send(new DescribeStreamCommand({ StreamArn: job.streamArn }));
    for (const shard of description.StreamDescription?.Shards ?? []) {
      const first = await c.streams.send(new GetShardIteratorCommand({ StreamArn: job.streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }));
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
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  (globalThis as { gc?: () => void }).gc?.();
  const heapAfterGcMb = process.memoryUsage().heapUsed / 2 ** 20;
  const result: DrainResult = { mode: job.mode, records, ms, peakRssMb: peak / 2 ** 20, heapAfterGcMb, requests: { ...c.meter.snapshot().requests, ...c.streamsMeter.snapshot().requests } };
  c.destroy();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`drain child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
