import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { ChangeFeedConsumer, DynamoCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { uniqueName } from '../../__tests__/support/dynamo';
import { clients } from '../support/local';
import { newEvents, orderTables, summaries, summaryProjection } from '../support/orders';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { percentile, seededRandom, sleep } from '../support/stats';

const POLL_MS = 100;

/**
 * Latency through the feed: one writer appends to 20 orders at random gaps (20–80 ms); `runChangeFeed`
 * with `pollIntervalMs: 100` projects them. Latency is measured on the consumer side: from the append's
 * return to `onBatch`, which runs once the batch's rows are written.
 */
export const latency: Scenario = {
  name: 'latency',
  title: 'Latency append → row',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const c = clients(context.endpoint);
    const appends = context.quick ? 40 : 300;
    const latencies: number[] = [];
    try {
      const { events, views, stream } = await orderTables(c.client, 'latency');
      const checkpoints = uniqueName('latency-checkpoints');
      await c.client.send(new CreateTableCommand(DynamoCheckpointStore.tableDefinition(checkpoints)));
      const projection = summaryProjection(stream, summaries(c.client, views, 'Latency'));
      const committed = new Map<string, number>();
      const seen = new Set<string>();
      const feed = new ChangeFeedConsumer({
        streamsClient: c.streams,
        streamArn: events.streamArn,
        consumer: 'bench',
        checkpoints: new DynamoCheckpointStore({ client: c.client, table: checkpoints }),
        pollIntervalMs: POLL_MS,
      });
      const running = runChangeFeed(feed, {
        projections: [projection],
        onBatch: (result) => {
          const now = performance.now();
          for (const outcome of result.outcomes[projection.name] ?? []) {
            if (outcome.status !== 'applied') continue;
            for (const event of outcome.applied) {
              const id = `${event.streamId}@${event.version}`;
              seen.add(id);
              const at = committed.get(id);
              if (at !== undefined) latencies.push(now - at);
            }
          }
        },
      });
      // Warm up: one append seen through the feed before measuring.
      await stream.append({ orderId: 'warm' }, newEvents(1, 1), { expectedVersion: 0 });
      for (let waited = 0; !seen.has('warm@1'); waited += 20) {
        if (waited > 30_000) throw new Error('latency: the feed never delivered the warm-up event');
        await sleep(20);
      }
      const random = seededRandom(3);
      const versions = new Map<string, number>();
      for (let i = 0; i < appends; i++) {
        const orderId = `o-${i % 20}`;
        const version = versions.get(orderId) ?? 0;
        await stream.append({ orderId }, newEvents(version + 1, 1), { expectedVersion: version });
        committed.set(`${orderId}@${version + 1}`, performance.now());
        versions.set(orderId, version + 1);
        await sleep(20 + random() * 60);
      }
      for (let waited = 0; latencies.length < appends && waited < 10_000; waited += 20) await sleep(20);
      await feed.stop();
      await running;
      if (latencies.length < appends) throw new Error(`latency: only ${latencies.length} of ${appends} events reached their rows`);
    } finally {
      c.destroy();
    }
    const p50 = percentile(latencies, 50);
    const rows: Row[] = [
      {
        scenario: '6 latency',
        measure: 'p50 ms, append → row',
        dynafold: p50,
        baseline: POLL_MS,
        against: 'poll interval',
        ratio: p50 / POLL_MS,
        target: '≤ 1.50×',
        pass: p50 <= 1.5 * POLL_MS,
      },
      {
        scenario: '6 latency',
        measure: 'p95 ms, append → row',
        dynafold: percentile(latencies, 95),
        baseline: POLL_MS,
        against: 'poll interval',
        ratio: percentile(latencies, 95) / POLL_MS,
      },
      {
        scenario: '6 latency',
        measure: 'p99 ms, append → row',
        dynafold: percentile(latencies, 99),
        baseline: POLL_MS,
        against: 'poll interval',
        ratio: percentile(latencies, 99) / POLL_MS,
      },
    ];
    return {
      rows,
      notes: [
        `${appends} single-event appends at 20–80 ms gaps; runChangeFeed with pollIntervalMs ${POLL_MS}, DynamoCheckpointStore; from append return to onBatch.`,
      ],
      details: { appends, pollIntervalMs: POLL_MS, latencies },
    };
  },
};
