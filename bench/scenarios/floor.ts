import type { DynamoDBRecord } from 'aws-lambda';
import { Projection } from 'dynafold';
import type { OrderEvent } from '../../__tests__/support/orders';
import { floorRequests } from '../baselines/raw-floor';
import { ViewRows, decodeRecord, type RawEvent } from '../baselines/view-rows';
import { clients } from '../support/local';
import { evolveSummary, fillOrder, initialSummary, orderTables, summaries, summaryProjection, type OrderStream } from '../support/orders';
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
    let poisoned: { requests: number; floor: number; byOperation: Record<string, number> } | undefined;
    const results: Array<{
      shape: string;
      floor: number;
      requests: number[];
      byOperation: Record<string, number>;
      dynafoldMs: number[];
      rawMs: number[];
    }> = [];
    try {
      const { events, views, stream } = await orderTables(c.client, 'floor');
      for (const [s, shape] of SHAPES.entries()) {
        const ids = Array.from({ length: shape.rows }, (_, i) => `s${s}-${i}`);
        await pool(ids.length, 8, (i) => fillOrder(stream, ids[i] as string, BEFORE + shape.eventsPerRow, { singlesAfter: BEFORE }));
      }
      const all = (await readAllRecords(c.streams, events.streamArn)).filter((r) => eventOf(r) !== undefined);
      for (const [s, shape] of SHAPES.entries()) {
        const ours = all.filter((r) => eventOf(r)?.streamId.startsWith(`s${s}-`) === true);
        const batch: DynamoDBRecord[] = shuffle(
          ours.filter((r) => (eventOf(r)?.version ?? 0) > BEFORE),
          seededRandom(s),
        ).map(asLambdaRecord);
        const eventsByRow = new Map<string, RawEvent[]>();
        for (const record of batch) {
          for (const event of decodeRecord(record)) eventsByRow.set(event.streamId, [...(eventsByRow.get(event.streamId) ?? []), event]);
        }
        const heads = new Map<string, Awaited<ReturnType<typeof stream.read>>>();
        await pool(shape.rows, 8, async (i) => {
          const orderId = `s${s}-${i}`;
          heads.set(orderId, await stream.read({ orderId }, { toVersion: BEFORE }));
        });
        const floorCount = Math.ceil(shape.rows / 100) + shape.rows;
        const result = {
          shape: `${shape.rows} rows × ${shape.eventsPerRow}`,
          floor: floorCount,
          requests: [] as number[],
          byOperation: {},
          dynafoldMs: [] as number[],
          rawMs: [] as number[],
        };
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
        if (shape.rows === 100 && shape.eventsPerRow === 1) poisoned = await poisonedBatch(c, stream, views, batch, heads, s);
      }
    } finally {
      c.destroy();
    }
    const poisonRows: Row[] =
      poisoned === undefined
        ? []
        : [
            {
              scenario: '3 floor',
              measure: 'requests, 100 rows × 1, one parked',
              dynafold: poisoned.requests,
              baseline: poisoned.floor,
              against: 'floor + parking writes',
              ratio: poisoned.requests / poisoned.floor,
              target: '≤ 1.00×',
              pass: poisoned.requests <= poisoned.floor,
            },
          ];
    const rows: Row[] = [
      ...poisonRows,
      ...results.flatMap((r) => {
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
          {
            scenario: '3 floor',
            measure: `ms/batch, ${r.shape}`,
            dynafold: median(r.dynafoldMs),
            baseline: median(r.rawMs),
            against: 'floor sent raw',
            ratio: time,
          },
        ];
      }),
    ];
    return {
      rows,
      notes: [
        `batches of 100 shuffled Lambda-shaped records whose rows stand at version ${BEFORE}; medians of ${iterations} batches per shape, dynafold and raw alternating.`,
        `dynafold's requests by operation (last batch): ${results.map((r) => `${r.shape}: ${JSON.stringify(r.byOperation)}`).join('; ')}`,
        ...(poisoned === undefined
          ? []
          : [
              `one poison row parked on its first attempt (poison: { park: { afterAttempts: 1 } }): ${JSON.stringify(poisoned.byOperation)}; the floor counts its row's Put as the parking write.`,
            ]),
      ],
      details: { shapes: SHAPES, iterations, results },
    };
  },
};

/**
 * The 100-row batch again, with one row whose `evolve` throws, parked on its first failure: the floor is
 * unchanged (the poison row's write is its parking write instead of its row).
 */
async function poisonedBatch(
  c: ReturnType<typeof clients>,
  stream: OrderStream,
  views: string,
  batch: ReadonlyArray<DynamoDBRecord>,
  heads: ReadonlyMap<string, ReadonlyArray<OrderEvent>>,
  shape: number,
): Promise<{ requests: number; floor: number; byOperation: Record<string, number> }> {
  const model = summaries(c.client, views, `FloorPoison${shape}`);
  const poisonId = `s${shape}-0`;
  const projection = new Projection({
    stream,
    readModel: model,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => {
      if (event.streamId === poisonId && event.version > BEFORE) throw new Error('poison');
      return evolveSummary(state, event);
    },
    checkpoint: 'version',
    poison: { park: { afterAttempts: 1 } },
  });
  await pool(heads.size, 8, async (n) => void (await projection.applyBatch([...(heads.get(`s${shape}-${n}`) ?? [])])));
  c.meter.reset();
  const out = await projection.processBatch(batch, { source: 'lambda' });
  if (out.response.batchItemFailures.length > 0 || !out.outcomes.some((outcome) => outcome.status === 'parked'))
    throw new Error('floor: the poison row was not parked');
  return { requests: c.meter.total(), floor: Math.ceil(heads.size / 100) + heads.size, byOperation: c.meter.snapshot().requests };
}
