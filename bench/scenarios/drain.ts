import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoCheckpointStore } from 'dynafold/feed';
import type { DrainJob, DrainResult } from '../support/drain-child';
import { runInChild } from '../support/child';
import { fill } from '../support/fill';
import { uniqueName } from '../../__tests__/support/dynamo';
import { clients } from '../support/local';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';

const WRITERS = 16;
const PER_STREAM = 100;
const PER_APPEND = 50;
const BATCH_SIZE = 1000;

/** Runs one drain in a child process, so each has its own heap and RSS. */
function drainInChild(job: DrainJob): Promise<DrainResult> {
  return runInChild('drain-child.ts', 'BENCH_DRAIN', job);
}

/**
 * Feed backlog drain: a backlog of events waiting in the stream, drained by runChangeFeed into a
 * projection vs a raw GetRecords loop (into the same projection, and reading only); peak RSS of the feed
 * at a small and at a large backlog, each drain in its own process.
 */
export const drain: Scenario = {
  name: 'drain',
  title: 'Feed backlog drain',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const large = context.quick ? 10_000 : 100_000;
    const small = large / 10;
    const c = clients(context.endpoint);
    const checkpointsTable = uniqueName('drain-checkpoints');
    await c.client.send(new CreateTableCommand(DynamoCheckpointStore.tableDefinition(checkpointsTable)));
    c.destroy();
    const results: Record<string, DrainResult> = {};
    const fills: Record<string, number> = {};
    const drainOf = async (size: number) => {
      const tables = await fill(context.endpoint, { total: size, perStream: PER_STREAM, perAppend: PER_APPEND, writers: WRITERS }, `d${size}`);
      fills[size] = tables.fillMs;
      context.log(`  filled ${size} events in ${(tables.fillMs / 1000).toFixed(1)} s`);
      return (mode: DrainJob['mode'], model: string) =>
        drainInChild({
          mode,
          endpoint: context.endpoint,
          streamArn: tables.events.streamArn,
          eventsTable: tables.events.name,
          viewsTable: tables.views,
          checkpointsTable,
          model,
          expected: size,
          batchSize: BATCH_SIZE,
        });
    };
    const smallDrain = await drainOf(small);
    results['feedSmall'] = await smallDrain('feed', 'DrainSmall');
    results['rawSmall'] = await smallDrain('raw', 'DrainRawSmall');
    const largeDrain = await drainOf(large);
    results['read'] = await largeDrain('read', 'DrainRead');
    results['feed'] = await largeDrain('feed', 'DrainFeed');
    results['raw'] = await largeDrain('raw', 'DrainRaw');
    context.log(`  ${JSON.stringify(results)}`);

    const rate = (r: DrainResult | undefined) => (r === undefined ? Number.NaN : r.events / (r.ms / 1000));
    const feed = rate(results['feed']);
    const raw = rate(results['raw']);
    const read = rate(results['read']);
    const rssSmall = results['feedSmall']?.peakRssMb ?? Number.NaN;
    const rssLarge = results['feed']?.peakRssMb ?? Number.NaN;
    const rssRatio = rssLarge / rssSmall;
    const rawRssRatio = (results['raw']?.peakRssMb ?? Number.NaN) / (results['rawSmall']?.peakRssMb ?? Number.NaN);
    const heapSmall = results['feedSmall']?.heapAfterGcMb ?? Number.NaN;
    const heapLarge = results['feed']?.heapAfterGcMb ?? Number.NaN;
    const k = (n: number) => `${n / 1000}k`;
    const rows: Row[] = [
      {
        scenario: '4 drain',
        measure: `events/s, ${k(large)} backlog`,
        dynafold: feed,
        baseline: raw,
        against: 'GetRecords loop + processBatch',
        ratio: feed / raw,
        target: '≥ 0.70×',
        pass: feed / raw >= 0.7,
      },
      {
        scenario: '4 drain',
        measure: `events/s, ${k(large)} backlog`,
        dynafold: feed,
        baseline: read,
        against: 'GetRecords loop, read only',
        ratio: feed / read,
      },
      {
        scenario: '4 drain',
        measure: `fill time s, ${k(large)} events`,
        dynafold: (fills[large] ?? Number.NaN) / 1000,
        against: '16 writers × 50-event appends',
      },
      {
        scenario: '4 drain',
        measure: `peak RSS MB, ${k(small)} → ${k(large)}`,
        dynafold: rssLarge,
        baseline: rssSmall,
        against: `feed at ${k(small)}`,
        ratio: rssRatio,
        target: 'within ±15%',
        pass: Math.abs(rssRatio - 1) <= 0.15,
      },
      {
        scenario: '4 drain',
        measure: `peak RSS ratio ${k(large)}/${k(small)}, loop`,
        dynafold: rssRatio,
        baseline: rawRssRatio,
        against: 'GetRecords loop + processBatch',
        ratio: rssRatio / rawRssRatio,
      },
      {
        scenario: '4 drain',
        measure: `heap after GC MB, ${k(small)} → ${k(large)}`,
        dynafold: heapLarge,
        baseline: heapSmall,
        against: `feed at ${k(small)}`,
        ratio: heapLarge / heapSmall,
        target: 'within ±15%',
        pass: Math.abs(heapLarge / heapSmall - 1) <= 0.15,
      },
    ];
    return {
      rows,
      notes: [
        `backlogs of ${k(small)} and ${k(large)} events (${PER_STREAM} per stream, ${WRITERS} writers); feed and loops read ${BATCH_SIZE} records per GetRecords; each drain in its own process.`,
        `requests of the ${k(large)} drains: ${['feed', 'raw', 'read'].map((m) => `${m} ${JSON.stringify(results[m]?.requests)}`).join('; ')}`,
      ],
      details: { large, small, writers: WRITERS, perStream: PER_STREAM, perAppend: PER_APPEND, batchSize: BATCH_SIZE, fills, results },
    };
  },
};
