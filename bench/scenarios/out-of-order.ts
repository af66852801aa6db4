import type { DynamoDBRecord } from 'aws-lambda';
import { ReadModifyWrite } from '../baselines/read-modify-write';
import { ViewRows } from '../baselines/view-rows';
import { deliverOnLanes, type LaneOutcome } from '../support/lanes';
import { clients } from '../support/local';
import { newEvents, orderTables, summaries, summaryProjection, type OrderStream } from '../support/orders';
import { asLambdaRecord, eventOf, readAllRecords } from '../support/records';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { chunks, pool, seededRandom, shuffle } from '../support/stats';

const LANES = 10; // ParallelizationFactor
const BATCH = 100;
const MAX_RETRY_ATTEMPTS = 2; // the event source mapping's MaximumRetryAttempts
const EVENTS_PER_ORDER = 10;

const sumOf = (counts: Record<string, number> | undefined) => Object.values(counts ?? {}).reduce((a, b) => a + b, 0);

/** Batches dealt round-robin to the lanes. */
function onLanes(records: ReadonlyArray<DynamoDBRecord>): DynamoDBRecord[][][] {
  const lanes: DynamoDBRecord[][][] = Array.from({ length: LANES }, () => []);
  chunks(records, BATCH).forEach((batch, i) => lanes[i % LANES]?.push(batch));
  return lanes;
}

/**
 * Out-of-order delivery: a workload of concurrent multi-event appends, its real stream records shuffled,
 * in batches of 100 over 10 concurrent lanes with Lambda's retry-from-the-failed-record contract. dynafold
 * vs read-modify-write-in-order (which waits for predecessors, bounded), and dynafold shuffled vs in order.
 */
export const outOfOrder: Scenario = {
  name: 'order',
  title: 'Out-of-order delivery',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const c = clients(context.endpoint);
    const orders = context.quick ? 40 : 300;
    const outcomes: Record<
      string,
      LaneOutcome & { events: number; stalls?: number; rowsBehind: number; requests: Record<string, number>; lostWrites: number }
    > = {};
    let lostWrites = 0;
    c.client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          if (error instanceof Error && error.name === 'ConditionalCheckFailedException') lostWrites++;
          throw error;
        }
      },
      { step: 'initialize', name: 'lostWrites' },
    );
    try {
      const { events, views, stream } = await orderTables(c.client, 'order');
      const fillStart = performance.now();
      const ids = Array.from({ length: orders }, (_, i) => `o-${i}`);
      await appendWorkload(stream, ids);
      const records = (await readAllRecords(c.streams, events.streamArn)).filter((r) => eventOf(r) !== undefined).map(asLambdaRecord);
      const total = records.length;
      context.log(`  filled ${total} events in ${((performance.now() - fillStart) / 1000).toFixed(1)} s`);
      const shuffled = shuffle(records, seededRandom(42));
      const truth = new Map(ids.map((id) => [id, EVENTS_PER_ORDER]));

      const runDynafold = async (name: string, input: DynamoDBRecord[]) => {
        const model = summaries(c.client, views, name);
        const projection = summaryProjection(stream, model);
        c.meter.reset();
        lostWrites = 0;
        const outcome = await deliverOnLanes(
          onLanes(input),
          async (batch) => (await projection.processBatch(batch, { source: 'lambda' })).response,
          MAX_RETRY_ATTEMPTS,
        );
        const requests = c.meter.snapshot().requests;
        let rowsBehind = 0;
        for (const [orderId, version] of truth) if ((await model.get({ orderId }, { consistent: true }))?.version !== version) rowsBehind++;
        outcomes[name] = { ...outcome, events: total, rowsBehind, requests, lostWrites };
      };
      const runRmw = async (name: string, input: DynamoDBRecord[]) => {
        const rows = new ViewRows(c.documents, views, name);
        const rmw = new ReadModifyWrite(rows);
        c.meter.reset();
        lostWrites = 0;
        const outcome = await deliverOnLanes(onLanes(input), (batch) => rmw.handle(batch), MAX_RETRY_ATTEMPTS);
        const requests = c.meter.snapshot().requests;
        let rowsBehind = 0;
        for (const [orderId, version] of truth) if ((await rows.get(orderId))?.version !== version) rowsBehind++;
        outcomes[name] = { ...outcome, events: total, stalls: rmw.stalls, rowsBehind, requests, lostWrites };
      };
      await runDynafold('ShuffledDynafold', shuffled);
      await runRmw('ShuffledRmw', shuffled);
      await runDynafold('InOrderDynafold', records);
      context.log(`  ${JSON.stringify(outcomes)}`);
    } finally {
      c.destroy();
    }
    const rate = (name: string) => {
      const o = outcomes[name];
      return o === undefined ? Number.NaN : o.events / (o.ms / 1000);
    };
    const d = outcomes['ShuffledDynafold'];
    const b = outcomes['ShuffledRmw'];
    const rows: Row[] = [
      {
        scenario: '2 order',
        measure: 'events/s, shuffled, PF 10',
        dynafold: rate('ShuffledDynafold'),
        baseline: rate('ShuffledRmw'),
        against: 'read-modify-write',
        ratio: rate('ShuffledDynafold') / rate('ShuffledRmw'),
      },
      {
        scenario: '2 order',
        measure: 'stalls (waits for a predecessor)',
        dynafold: 0,
        baseline: b?.stalls ?? Number.NaN,
        against: 'read-modify-write',
      },
      {
        scenario: '2 order',
        measure: 'batch retries',
        dynafold: d?.retries ?? Number.NaN,
        baseline: b?.retries ?? Number.NaN,
        against: 'read-modify-write',
      },
      {
        scenario: '2 order',
        measure: 'records given up (dead letters)',
        dynafold: d?.givenUp ?? Number.NaN,
        baseline: b?.givenUp ?? Number.NaN,
        against: 'read-modify-write',
        target: '0 at PF 10',
        pass: d?.givenUp === 0,
      },
      {
        scenario: '2 order',
        measure: 'requests/event',
        dynafold: sumOf(d?.requests) / (d?.events ?? 1),
        baseline: sumOf(b?.requests) / (b?.events ?? 1),
        against: 'read-modify-write',
      },
      {
        scenario: '2 order',
        measure: 'lost conditional writes',
        dynafold: d?.lostWrites ?? Number.NaN,
        baseline: b?.lostWrites ?? Number.NaN,
        against: 'read-modify-write',
      },
      {
        scenario: '2 order',
        measure: 'rows behind the stream at the end',
        dynafold: d?.rowsBehind ?? Number.NaN,
        baseline: b?.rowsBehind ?? Number.NaN,
        against: 'read-modify-write',
      },
      {
        scenario: '2 order',
        measure: 'events/s, shuffled vs in order',
        dynafold: rate('ShuffledDynafold'),
        baseline: rate('InOrderDynafold'),
        against: 'dynafold in order',
        ratio: rate('ShuffledDynafold') / rate('InOrderDynafold'),
      },
    ];
    return {
      rows,
      notes: [
        `${orders} orders × ${EVENTS_PER_ORDER} events from 16 concurrent writers; batches of ${BATCH} dealt round-robin to ${LANES} lanes; MaximumRetryAttempts ${MAX_RETRY_ATTEMPTS}.`,
        'read-modify-write waits 3 × 25 ms for a missing predecessor, then fails the record; "in order" is the shard order on the same lanes.',
      ],
      details: { lanes: LANES, batch: BATCH, maxRetryAttempts: MAX_RETRY_ATTEMPTS, orders, outcomes },
    };
  },
};

/** Each order gets its events in appends of 1–4 events, orders interleaved across 16 writers. */
async function appendWorkload(stream: OrderStream, ids: ReadonlyArray<string>): Promise<void> {
  const random = seededRandom(7);
  const plans = ids.map((id) => {
    const sizes: number[] = [];
    for (let left = EVENTS_PER_ORDER; left > 0;) {
      const size = Math.min(left, 1 + Math.floor(random() * 4));
      sizes.push(size);
      left -= size;
    }
    return { id, sizes };
  });
  // Round-robin over orders, one append at a time, so one order's appends are spread through the shard.
  const steps = plans.flatMap((plan) =>
    plan.sizes.map((size, step) => ({ id: plan.id, size, step, from: plan.sizes.slice(0, step).reduce((a, b) => a + b, 0) })),
  );
  steps.sort((a, b) => a.step - b.step);
  await pool(steps.length, 16, async (i) => {
    const s = steps[i];
    if (s === undefined) return;
    // An order's next append must follow its previous one: retry at the head until it is there.
    for (;;) {
      const head = await stream.version({ orderId: s.id });
      if (head === s.from) {
        await stream.append({ orderId: s.id }, newEvents(s.from + 1, s.size), { expectedVersion: s.from });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  });
}
