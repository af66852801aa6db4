import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { eventsTableDefinition, readModelTableDefinition, type StreamEvent } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';
import { randomInt, seededRandom, shuffle } from '../support/random';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../support/stream-records';

const client = testClient();
const SCHEDULES = Number(process.env['DYNAFOLD_SCHEDULES'] ?? 12);
const BASE_SEED = Number(process.env['DYNAFOLD_SEED'] ?? Date.now() % 100_000);

let stream: ReturnType<typeof orderStream>;
let viewsTable: string;
let records: _Record[];
const orderIds = Array.from({ length: 10 }, (_, i) => `o-${i}`);

afterAll(() => client.destroy());

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'events');
  stream = orderStream(client, events.name);
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'views')).name;
  // A workload of multi-event appends from concurrent writers, so transactions interleave in the feed.
  const random = seededRandom(BASE_SEED);
  await Promise.all(
    orderIds.map(async (orderId) => {
      await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: `c-${orderId}` } }], { expectedVersion: 0 });
      for (let chunk = 0; chunk < 4; chunk++) {
        const items = Array.from({ length: randomInt(random, 1, 4) }, (_, i) => ({ type: 'ItemAdded' as const, data: { sku: `s${chunk}-${i}`, price: randomInt(random, 1, 50) } }));
        await stream.append({ orderId }, items);
      }
      if (random() < 0.7) await stream.append({ orderId }, [{ type: 'OrderShipped', data: {} }]);
    }),
  );
  records = insertsOnly(await readStreamRecords(events.streamArn as string));
});

/** Delivers like Lambda with ParallelizationFactor > 1: shuffled, duplicated, split, on concurrent lanes, retried from the first failed record. */
async function deliver(seed: number, deliverBatch: (batch: unknown[]) => Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }>, identify: (record: unknown) => string) {
  const random = seededRandom(seed);
  const copies = shuffle(records.flatMap((record) => (random() < 0.3 ? [record, record] : [record])), random);
  const lanes: unknown[][][] = Array.from({ length: randomInt(random, 1, 6) }, () => []);
  for (let start = 0; start < copies.length; ) {
    const size = randomInt(random, 1, 25);
    const batch = copies.slice(start, start + size).map((record) => (random() < 0.5 ? asLambdaRecord(record) : record));
    lanes[randomInt(random, 0, lanes.length - 1)]?.push(batch);
    start += size;
  }
  let retries = 0;
  await Promise.all(
    lanes.map(async (batches) => {
      for (let batch of batches) {
        for (;;) {
          const { batchItemFailures } = await deliverBatch(batch);
          const first = batchItemFailures[0];
          if (first === undefined) break;
          retries++;
          batch = batch.slice(batch.findIndex((record) => identify(record) === first.itemIdentifier));
        }
      }
    }),
  );
  return retries;
}

test(`seeded schedules of shuffled, duplicated, split, concurrent batches fold every row exactly once (base seed ${BASE_SEED})`, async () => {
  const truth = new Map<string, OrderEvent[]>();
  for (const orderId of orderIds) truth.set(orderId, await stream.read({ orderId }));
  const totalEvents = [...truth.values()].reduce((sum, events) => sum + events.length, 0);

  for (let schedule = 0; schedule < SCHEDULES; schedule++) {
    const seed = BASE_SEED + schedule;
    // A fresh model name per schedule gives fresh rows in the same table.
    const model = orderSummaries(client, viewsTable, `OrderSummary${seed}`);
    const projection = orderSummaryProjection(stream, model);
    const applied: StreamEvent[] = [];
    await deliver(
      seed,
      async (batch) => {
        const result = await projection.processBatch(batch, { source: 'lambda' });
        for (const outcome of result.outcomes) if (outcome.status === 'applied') applied.push(...outcome.applied);
        return result.response;
      },
      (record) => (record as _Record).dynamodb?.SequenceNumber ?? '',
    );

    const context = `schedule seed ${seed}`;
    const ids = applied.map((event) => `${event.streamId}@${event.version}`);
    expect({ context, duplicates: ids.length - new Set(ids).size }).toEqual({ context, duplicates: 0 });
    expect({ context, applied: ids.length }).toEqual({ context, applied: totalEvents });
    for (const [orderId, events] of truth) {
      const row = await model.get({ orderId }, { consistent: true });
      expect({ context, row: row && { ...row, createdAt: undefined, updatedAt: undefined } }).toEqual({
        context,
        row: { ...foldSummary(orderId, events), createdAt: undefined, updatedAt: undefined },
      });
    }
  }
});
