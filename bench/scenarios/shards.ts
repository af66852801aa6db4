/**
 * Drain across 32 shards: a backlog spread over an AWS-shaped stream of 32 shards that roll over and
 * split as records come in (the tests' simulated Streams endpoint, fed by DynamoDB Local's stream),
 * drained by a ChangeFeedConsumer with 1, 4 and 16 reads in flight (`maxConcurrentReads`). Every key's
 * items must arrive once each and in the order they were written, whatever the lineage.
 */
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ChangeFeedConsumer, MemoryCheckpointStore, runBatches } from 'dynafold/feed';
import { createStreamedTable } from '../../__tests__/feed/support';
import { partitionKeys, writeRounds } from '../../__tests__/streams-sim/support';
import { SimulatedStream, simulateStreams } from '../../__tests__/support/streams-sim';
import { clients, type Endpoint } from '../support/local';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';

const SHARDS = 32;
const KEYS = 128;
const READS_IN_FLIGHT = [1, 4, 16] as const;
const SEED = 7;
const DRAIN_DEADLINE_MS = 300_000;

interface ShardDrain {
  readonly reads: number;
  readonly ms: number;
  readonly records: number;
  readonly outOfOrder: number;
  readonly twice: number;
  readonly shards: number;
}

/** One drain of the whole backlog through a fresh simulation (same seed: the same shards and lineage each time). */
async function drainOnce(endpoint: Endpoint, streamArn: string, reads: number, expected: number): Promise<ShardDrain> {
  const source = new DynamoDBStreamsClient({ ...endpoint, maxAttempts: 3 });
  const plugged = new DynamoDBStreamsClient({ ...endpoint, maxAttempts: 3 });
  try {
    const simulation = await SimulatedStream.create({ source, streamArn, seed: SEED, shards: SHARDS, rolloverChance: 0.002, splitChance: 0.001 });
    simulateStreams(plugged, simulation);
    const feed = new ChangeFeedConsumer({
      streamsClient: plugged,
      streamArn,
      checkpoints: new MemoryCheckpointStore(),
      maxConcurrentReads: reads,
      batchSize: 1000,
      pollIntervalMs: 50,
      lease: false,
    });
    const last = new Map<string, number>();
    const seen = new Set<string>();
    let records = 0;
    let outOfOrder = 0;
    let twice = 0;
    const deadline = setTimeout(() => void feed.stop(), DRAIN_DEADLINE_MS);
    const started = performance.now();
    await runBatches(feed, async (batch) => {
      for (const record of batch.records) {
        const pk = String(record.dynamodb?.NewImage?.['pk']?.S);
        const n = Number(record.dynamodb?.NewImage?.['n']?.N);
        records++;
        if (seen.has(`${pk}#${n}`)) twice++;
        seen.add(`${pk}#${n}`);
        if ((last.get(pk) ?? -1) >= n) outOfOrder++;
        last.set(pk, n);
      }
      if (seen.size >= expected) void feed.stop();
      return { batchItemFailures: [] };
    });
    const ms = performance.now() - started;
    clearTimeout(deadline);
    if (seen.size < expected) throw new Error(`the drain with ${reads} reads in flight ended with ${seen.size} of ${expected} items`);
    return { reads, ms, records, outOfOrder, twice, shards: simulation.lineage().length };
  } finally {
    source.destroy();
    plugged.destroy();
  }
}

export const shards: Scenario = {
  name: 'shards',
  title: 'Drain across 32 simulated shards',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const perKey = context.quick ? 40 : 200;
    const expected = KEYS * perKey;
    const c = clients(context.endpoint);
    const started = performance.now();
    let streamArn: string;
    try {
      const created = await createStreamedTable(c.client, 'bench-shards');
      streamArn = created.streamArn;
      await writeRounds(c.client, created.table, partitionKeys(KEYS), 0, perKey);
    } finally {
      c.destroy();
    }
    context.log(`  filled ${expected} items over ${KEYS} keys in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const drains: ShardDrain[] = [];
    for (const reads of READS_IN_FLIGHT) {
      const drain = await drainOnce(context.endpoint, streamArn, reads, expected);
      context.log(`  ${reads} reads in flight: ${JSON.stringify(drain)}`);
      drains.push(drain);
    }
    const rate = (drain: ShardDrain) => drain.records / (drain.ms / 1000);
    const one = drains[0] as ShardDrain;
    const rows: Row[] = drains.map((drain) => ({
      scenario: '10 shards',
      measure: `records/s, ${drain.reads} read${drain.reads === 1 ? '' : 's'} in flight`,
      dynafold: rate(drain),
      baseline: rate(one),
      against: '1 read in flight',
      ratio: rate(drain) / rate(one),
    }));
    const wrong = drains.reduce((sum, drain) => sum + drain.outOfOrder + drain.twice, 0);
    rows.push({
      scenario: '10 shards',
      measure: 'items out of order per key, or twice',
      dynafold: wrong,
      target: '0',
      pass: wrong === 0,
    });
    return {
      rows,
      notes: [
        `${expected} items of ${KEYS} keys (each key's written in order) drained from ${SHARDS} simulated shards that roll over (0.2% a record) and split (0.1%), ${one.shards} shards in the lineage by the end; the simulation (seed ${SEED}) answers in process, so the figures are the feed's own cost, without the network round trips that make reads in flight matter more on AWS.`,
      ],
      details: { drains },
    };
  },
};
