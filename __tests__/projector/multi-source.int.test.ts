import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { z } from 'zod';
import { EventStream, MultiSourceProjection, ReadModel, eventsTableDefinition, processBatch, readModelTableDefinition, type StreamEvent } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { randomInt, seededRandom, shuffle } from '../support/random';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../support/stream-records';

const client = testClient();
afterAll(() => client.destroy());
const SCHEDULES = Number(process.env['DYNAFOLD_SCHEDULES'] ?? 6);
const BASE_SEED = Number(process.env['DYNAFOLD_SEED'] ?? Date.now() % 100_000);

const purchaseEvents = {
  Purchased: z.object({ customer: z.string(), amount: z.number() }),
  Refunded: z.object({ customer: z.string(), amount: z.number() }),
};
const loyaltyEvents = { PointsAwarded: z.object({ customer: z.string(), points: z.number() }) };
const customerSchema = z.object({ customer: z.string(), purchases: z.number(), spent: z.number(), points: z.number() });
type Customer = z.output<typeof customerSchema>;

let purchases: EventStream<'Purchase', readonly ['purchaseId'], typeof purchaseEvents>;
let loyalty: EventStream<'Loyalty', readonly ['programId'], typeof loyaltyEvents>;
let viewsTable: string;
let records: _Record[];
const customers = ['ada', 'grace', 'edsger', 'barbara', 'alan'];

function customerModel(name: string, table = viewsTable) {
  return new ReadModel({ client, table, name, schema: customerSchema, key: { pk: { field: 'pk', composite: ['customer'] } } });
}

function customerProjection(model: ReturnType<typeof customerModel>) {
  return new MultiSourceProjection({
    readModel: model,
    sources: {
      purchases: { stream: purchases, key: (_id, event) => ({ customer: event.data.customer }) },
      loyalty: { stream: loyalty, key: (_id, event) => ({ customer: event.data.customer }) },
    },
    initial: (key) => ({ customer: String(key['customer']), purchases: 0, spent: 0, points: 0 }),
    evolve: (state: Customer, event) => {
      switch (event.type) {
        case 'Purchased':
          return { ...state, purchases: state.purchases + 1, spent: state.spent + event.data.amount };
        case 'Refunded':
          return { ...state, spent: state.spent - event.data.amount };
        case 'PointsAwarded':
          return { ...state, points: state.points + event.data.points };
      }
    },
  });
}

/** The row a full fold over every source gives (the fold is commutative across instances). */
function expected(customer: string, events: ReadonlyArray<StreamEvent>): Customer {
  const row = { customer, purchases: 0, spent: 0, points: 0 };
  for (const event of events) {
    const data = event.data as { customer: string; amount?: number; points?: number };
    if (data.customer !== customer) continue;
    if (event.type === 'Purchased') Object.assign(row, { purchases: row.purchases + 1, spent: row.spent + (data.amount ?? 0) });
    if (event.type === 'Refunded') row.spent -= data.amount ?? 0;
    if (event.type === 'PointsAwarded') row.points += data.points ?? 0;
  }
  return row;
}

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'events');
  purchases = new EventStream({ client, table: events.name, name: 'Purchase', streamId: ['purchaseId'], events: purchaseEvents });
  loyalty = new EventStream({ client, table: events.name, name: 'Loyalty', streamId: ['programId'], events: loyaltyEvents });
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [customerModel('Customer', name)]), 'views')).name;
  const random = seededRandom(BASE_SEED);
  // Many purchase instances, each touching random customers; two loyalty programmes feeding every customer.
  await Promise.all(
    Array.from({ length: 16 }, async (_, p) => {
      for (let round = 0; round < 3; round++) {
        const customer = customers[randomInt(random, 0, customers.length - 1)] as string;
        const amount = randomInt(random, 5, 90);
        await purchases.append({ purchaseId: `p-${p}` }, [
          { type: 'Purchased', data: { customer, amount } },
          ...(random() < 0.3 ? [{ type: 'Refunded' as const, data: { customer, amount: 5 } }] : []),
        ]);
      }
    }),
  );
  for (const programId of ['gold', 'silver']) {
    await loyalty.append({ programId }, customers.map((customer, i) => ({ type: 'PointsAwarded' as const, data: { customer, points: i + 1 } })));
  }
  records = insertsOnly(await readStreamRecords(events.streamArn as string));
});

test(`seeded deliveries across several source streams fold every row over all its sources, each event exactly once (base seed ${BASE_SEED})`, async () => {
  const all: StreamEvent[] = [];
  for (let p = 0; p < 16; p++) all.push(...(await purchases.read({ purchaseId: `p-${p}` })));
  for (const programId of ['gold', 'silver']) all.push(...(await loyalty.read({ programId })));

  for (let schedule = 0; schedule < SCHEDULES; schedule++) {
    const seed = BASE_SEED + schedule;
    const context = `schedule seed ${seed}`;
    const random = seededRandom(seed);
    const model = customerModel(`Customer${seed}`);
    const customersProjection = customerProjection(model);
    const copies = shuffle(records.flatMap((record) => (random() < 0.3 ? [record, record] : [record])), random);
    const lanes: unknown[][][] = Array.from({ length: randomInt(random, 1, 5) }, () => []);
    for (let start = 0; start < copies.length; ) {
      const size = randomInt(random, 1, 20);
      lanes[randomInt(random, 0, lanes.length - 1)]?.push(copies.slice(start, start + size).map((record) => (random() < 0.5 ? asLambdaRecord(record) : record)));
      start += size;
    }
    const applied: string[] = [];
    await Promise.all(
      lanes.map(async (batches) => {
        for (let batch of batches) {
          for (;;) {
            const result = await processBatch(batch, { projections: { customers: customersProjection }, source: 'lambda' });
            for (const outcome of result.outcomes.customers) if (outcome.status === 'applied') applied.push(...outcome.applied.map((e) => `${e.streamName}#${e.streamId}@${e.version}`));
            const first = result.response.batchItemFailures[0];
            if (first === undefined) break;
            batch = batch.slice(batch.findIndex((record) => (record as _Record).dynamodb?.SequenceNumber === first.itemIdentifier));
          }
        }
      }),
    );
    expect({ context, duplicates: applied.length - new Set(applied).size }).toEqual({ context, duplicates: 0 });
    expect({ context, applied: applied.length }).toEqual({ context, applied: all.length });
    for (const customer of customers) {
      const row = await model.get({ customer }, { consistent: true });
      expect({ context, row: row && { ...row, createdAt: undefined, updatedAt: undefined } }).toEqual({
        context,
        row: { ...expected(customer, all), createdAt: undefined, updatedAt: undefined },
      });
    }
  }
});

test('a row that would outgrow the item size with its per-instance checkpoints fails with a clear error', async () => {
  const model = customerModel('Crowded');
  const crowded = new MultiSourceProjection({
    readModel: model,
    sources: { purchases: { stream: purchases, key: () => ({ customer: 'everyone' }) } },
    initial: () => ({ customer: 'everyone', purchases: 0, spent: 0, points: 0 }),
    evolve: (state: Customer) => ({ ...state, purchases: state.purchases + 1 }),
  });
  const long = 'x'.repeat(900);
  // 480 instances with 900-character ids: their checkpoints alone pass 400 KB.
  const events = Array.from({ length: 480 }, (_, i) => ({
    streamName: 'Purchase',
    streamId: `${long}-${i}`,
    version: 1,
    type: 'Purchased' as const,
    data: { customer: 'everyone', amount: 1 },
    timestamp: new Date().toISOString(),
  }));
  const result = await crowded.applyBatch(events);
  expect(result.outcomes[0]).toMatchObject({ status: 'failed', error: { code: 'projector.rowTooLarge' } });
  expect(await model.get({ customer: 'everyone' }, { consistent: true })).toBeUndefined();
});
