/**
 * One backfill, in a process of its own so its peak RSS is its own. Reads its job from BENCH_BACKFILL
 * and prints one JSON line: orders, milliseconds, memory, requests. Modes: `dynafold` (the order
 * summary projection's `backfill`) and `floor` (the hand-written backfill).
 */
import { handBackfill } from '../baselines/hand-backfill';
import { ViewRows } from '../baselines/view-rows';
import { childJob, type JobResult, type MemoryFigures } from './child-job';
import { clients, type Endpoint } from './local';
import { orderStream, summaries, summaryProjection } from './orders';

export interface BackfillJob {
  readonly mode: 'dynafold' | 'floor';
  readonly endpoint: Endpoint;
  readonly eventsTable: string;
  readonly viewsTable: string;
  readonly model: string;
  readonly segments: number;
  readonly concurrency: number;
}

export interface BackfillResult extends JobResult {
  readonly orders: number;
}

childJob<BackfillJob, Omit<BackfillResult, keyof MemoryFigures>>(
  'BENCH_BACKFILL',
  async (job) => {
    const c = clients(job.endpoint);
    const start = performance.now();
    let orders: number;
    if (job.mode === 'dynafold') {
      const projection = summaryProjection(orderStream(c.client, job.eventsTable), summaries(c.client, job.viewsTable, job.model));
      orders = (await projection.backfill({ segments: job.segments, concurrency: job.concurrency })).instancesDone;
    } else {
      orders = await handBackfill(c.documents, job.eventsTable, new ViewRows(c.documents, job.viewsTable, job.model), job);
    }
    const ms = performance.now() - start;
    const requests = c.meter.snapshot().requests;
    c.destroy();
    return { mode: job.mode, orders, ms, requests };
  },
  { sampleLiveHeap: true },
);
