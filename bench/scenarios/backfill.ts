import type { BackfillJob, BackfillResult } from '../support/backfill-child';
import { runInChild } from '../support/child';
import { fill } from '../support/fill';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';

const EVENTS_PER_ORDER = 10;
const SEGMENTS = 4;
const CONCURRENCY = 16;
const WRITERS = 16;

/**
 * Backfill: a new projection brought over a history of orders × 10 events by `backfill`, against a
 * hand-written floor (parallel Scan + one Query per order + one Put per row, same segments and
 * concurrency); peak RSS and live heap of the backfill at a small and a large history. Each run in its own process.
 */
export const backfill: Scenario = {
  name: 'backfill',
  title: 'Backfill of a new projection',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const large = context.quick ? 1_000 : 10_000;
    const small = large / 10;
    const shape = (orders: number) => ({
      total: orders * EVENTS_PER_ORDER,
      perStream: EVENTS_PER_ORDER,
      perAppend: EVENTS_PER_ORDER,
      writers: WRITERS,
    });
    const fills: Record<number, number> = {};
    const history = async (orders: number) => {
      const tables = await fill(context.endpoint, shape(orders), `b${orders}`);
      fills[orders] = tables.fillMs;
      context.log(`  filled ${orders} orders × ${EVENTS_PER_ORDER} events in ${(tables.fillMs / 1000).toFixed(1)} s`);
      return (mode: BackfillJob['mode'], model: string) =>
        runInChild<BackfillJob, BackfillResult>('backfill-child.ts', 'BENCH_BACKFILL', {
          mode,
          endpoint: context.endpoint,
          eventsTable: tables.events.name,
          viewsTable: tables.views,
          model,
          segments: SEGMENTS,
          concurrency: CONCURRENCY,
        });
    };
    const results: Record<string, BackfillResult> = {};
    const smallRun = await history(small);
    results['small'] = await smallRun('dynafold', 'BackfillSmall');
    const largeRun = await history(large);
    // The floor first and last around dynafold: a warming DynamoDB Local favours neither.
    const floorFirst = await largeRun('floor', 'FloorFirst');
    results['dynafold'] = await largeRun('dynafold', 'Backfill');
    const floorLast = await largeRun('floor', 'FloorLast');
    results['floor'] = floorFirst.ms <= floorLast.ms ? floorFirst : floorLast;
    for (const [name, result] of Object.entries(results)) {
      const want = name === 'small' ? small : large;
      if (result.orders !== want) throw new Error(`backfill ${name}: ${result.orders} orders, expected ${want}`);
    }

    const rate = (r: BackfillResult | undefined) => (r === undefined ? Number.NaN : r.orders / (r.ms / 1000));
    const perOrder = (r: BackfillResult | undefined) =>
      r === undefined ? Number.NaN : Object.values(r.requests).reduce((sum, n) => sum + n, 0) / r.orders;
    const ours = rate(results['dynafold']);
    const floor = rate(results['floor']);
    const rssRatio = (results['dynafold']?.peakRssMb ?? Number.NaN) / (results['small']?.peakRssMb ?? Number.NaN);
    const heapRatio = (results['dynafold']?.peakLiveHeapMb ?? Number.NaN) / (results['small']?.peakLiveHeapMb ?? Number.NaN);
    const k = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
    const rows: Row[] = [
      {
        scenario: '7 backfill',
        measure: `orders/s, ${k(large)} × ${EVENTS_PER_ORDER}`,
        dynafold: ours,
        baseline: floor,
        against: 'Scan + Query + Put by hand',
        ratio: ours / floor,
        target: '≥ 0.70×',
        pass: ours / floor >= 0.7,
      },
      {
        scenario: '7 backfill',
        measure: `requests per order, ${k(large)}`,
        dynafold: perOrder(results['dynafold']),
        baseline: perOrder(results['floor']),
        against: 'Scan + Query + Put by hand',
        ratio: perOrder(results['dynafold']) / perOrder(results['floor']),
      },
      {
        scenario: '7 backfill',
        measure: `peak RSS MB, ${k(small)} → ${k(large)}`,
        dynafold: results['dynafold']?.peakRssMb,
        baseline: results['small']?.peakRssMb,
        against: `backfill of ${k(small)}`,
        ratio: rssRatio,
        target: 'within ±15%',
        pass: Math.abs(rssRatio - 1) <= 0.15,
      },
      {
        scenario: '7 backfill',
        measure: `peak live heap MB, ${k(small)} → ${k(large)}`,
        dynafold: results['dynafold']?.peakLiveHeapMb,
        baseline: results['small']?.peakLiveHeapMb,
        against: `backfill of ${k(small)}`,
        ratio: heapRatio,
      },
    ];
    return {
      rows,
      notes: [
        `${k(small)} and ${k(large)} orders of ${EVENTS_PER_ORDER} events; ${SEGMENTS} scan segments, ${CONCURRENCY} orders in flight; the floor's better of two runs (before and after dynafold's).`,
        `memory: each backfill in its own process; live heap is the heap in use right after a full collection, sampled every 250 ms (RSS also holds what the collector has not returned yet). It grows with the scan page (a page's instances wait for a slot), which DynamoDB caps at 1 MB, not with the history.`,
        `requests, ${k(large)}: dynafold ${JSON.stringify(results['dynafold']?.requests)}; floor ${JSON.stringify(results['floor']?.requests)}`,
      ],
      details: {
        large,
        small,
        eventsPerOrder: EVENTS_PER_ORDER,
        segments: SEGMENTS,
        concurrency: CONCURRENCY,
        fills,
        results,
        floorRuns: [floorFirst, floorLast],
      },
    };
  },
};
