import type { DynamoDBRecord } from 'aws-lambda';
import { floorRequests } from '../baselines/raw-floor';
import { ViewRows, decodeRecord, type RawEvent } from '../baselines/view-rows';
import { clients } from '../support/local';
import { evolveSummary, fillOrder, initialSummary, orderTables, summaries, summaryProjection } from '../support/orders';
import { asLambdaRecord, eventOf, readAllRecords } from '../support/records';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { median, pool, seededRandom, shuffle } from '../support/stats';

const BEFORE = 2; // rows stand at version 2 when the batch arrives
const SHAPES = [
  { rows: 50, eventsPerRow: 2 },
  { rows: 100, eventsPerRow: 1 },
  { rows: 20, eventsPerRow: 5 },
];

/**
 * The floor: what a correct projector must send for a batch of 100 records whose rows' gaps the batch
 * holds: ceil(rows / 100) BatchGetItem + one conditional PutItem per row. dynafold's requests over that,
 * and its time over the time of exactly those requests sent raw.
 */
export const floor: Scenario = {
  name: 'floor',
  title: 'Floor',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const c = clients(context.endpoint);
    const iterations = context.quick ? 2 : 8;
    const results: Array<{ shape: string; floor: number; requests: number[]; byOperation: Record<string, number>; dynafoldMs: number[]; rawMs: number[] }> = [];
    try {
      const { events, views, stream } = await orderTables(c.client, 'floor');
      for (const [s, shape] of SHAPES.entries()) {
        const ids = Array.from({ length: shape.rows }, (_, i) => `s${s}-${i}`);
        await pool(ids.length, 8, (i) => fillOrder(stream, ids[i] as string, BEFORE + shape.eventsPerRow));
      }
      const all = (await readAllRecords(c.streams, events.streamArn)).filter((r) => eventOf(r) !== undefined);
      for (const [s, shape] of SHAPES.entries()) {
        const ours = all.filter((r) => eventOf(r)?.streamId.startsWith(`s${s}-`) === true);
        const batch: DynamoDBRecord[] = shuffle(ours.filter((r) => (eventOf(r)?.version ?? 0) > BEFORE), seededRandom(s)).map(asLambdaRecord);
        const eventsByRow = new Map<string, RawEvent[]>();
        for (const record of batch) {
          const event = decodeRecord(record) as RawEvent;
          eventsByRow.set(event.streamId, [...(eventsByRow.get(event.streamId) ?? []), event]);
        }
        const heads = new Map<string, Awaited<ReturnType<typeof stream.read>>>();
        await pool(shape.rows, 8, async (i) => {
          const orderId = `s${s}-${i}`;
          heads.set(orderId, await stream.read({ orderId }, { toVersion: BEFORE }));
        });
        const floorCount = Math.ceil(shape.rows / 100) + shape.rows;
        const result = { shape: `${shape.rows} rows × ${shape.eventsPerRow}`, floor: floorCount, requests: [] as number[], byOperation: {}, dynafoldMs: [] as number[], rawMs: [] as number[] };
        for (let i = 0; i < iterations; i++) {
          const model = summaries(c.client, views, `Floor${s}i${i}`);
          const projection = summaryProjection(stream, model);
          const raw = new ViewRows(c.documents, views, `FloorRaw${s}i${i}`);
          await pool(shape.rows, 8, async (n) => {
            const orderId = `s${s}-${n}`;
            const head = heads.get(orderId) ?? [];
            await projection.applyBatch(head);
            await raw.put(head.reduce(evolveSummary, initialSummary(orderId)));
          });
          const runDynafold = async () => {
            c.meter.reset();
            const t = performance.now();
            const out = await projection.processBatch(batch, { source: 'lambda' });
            result.dynafoldMs.push(performance.now() - t);
            if (out.response.batchItemFailures.length > 0) throw new Error('floor: dynafold failed a record');
            result.requests.push(c.meter.total());
            result.byOperation = c.meter.snapshot().requests;
          };
          const runRaw = async () => {
            const t = performance.now();
            await floorRequests(raw, eventsByRow);
            result.rawMs.push(performance.now() - t);
          };
          // Alternate which goes first, so neither always meets a warmer server.
          if (i % 2 === 0) {
            await runDynafold();
            await runRaw();
          } else {
            await runRaw();
            await runDynafold();
          }
        }
        results.push(result);
        context.log(`  ${result.shape}: ${JSON.stringify(result)}`);
      }
    } finally {
      c.destroy();
    }
    const rows: Row[] = results.flatMap((r) => {
      const requests = median(r.requests);
      const ratio = requests / r.floor;
      const time = median(r.dynafoldMs) / median(r.rawMs);
      return [
        {
          scenario: '3 floor',
          measure: `requests, ${r.shape}`,
          dynafold: requests,
          baseline: r.floor,
          against: 'floor',
          ratio,
          target: '≤ 1.10×',
          pass: ratio <= 1.1,
        },
        { scenario: '3 floor', measure: `ms/batch, ${r.shape}`, dynafold: median(r.dynafoldMs), baseline: median(r.rawMs), against: 'floor sent raw', ratio: time },
      ];
    });
    return {
      rows,
      notes: [
        `batches of 100 shuffled Lambda-shaped records whose rows stand at version ${BEFORE}; medians of ${iterations} batches per shape, dynafold and raw alternating.`,
        `dynafold's requests by operation (last batch): ${results.map((r) => `${r.shape}: ${JSON.stringify(r.byOperation)}`).join('; ')}`,
      ],
      details: { shapes: SHAPES, iterations, results },
    };
  },
};
