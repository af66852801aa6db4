import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { Projection, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { OutboxRelay, outboxTableDefinition, type OutboxMessage } from 'dynafold/outbox';
import { createTestTable, testClient } from '../support/dynamo';
import { evolveSummary, foldSummary, initialSummary, orderSummaries } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';
import { randomInt, seededRandom, shuffle } from '../support/random';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../support/stream-records';

const client = testClient();
afterAll(() => client.destroy());
const SEED = Number(process.env['DYNAFOLD_SEED'] ?? Date.now() % 100_000);

let stream: ReturnType<typeof orderStream>;
let viewsTable: string;
let outboxTable: string;
let outboxStreamArn: string;
let records: _Record[];
/** Events across the orders: the records are commits, the one of items holding three. */
let eventCount = 0;
const orderIds = ['o-1', 'o-2', 'o-3', 'o-4'];

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'events');
  stream = orderStream(client, events.name);
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'views')).name;
  const outbox = await createTestTable(client, outboxTableDefinition, 'outbox');
  outboxTable = outbox.name;
  outboxStreamArn = outbox.streamArn as string;
  for (const orderId of orderIds) {
    await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
    await stream.append(
      { orderId },
      [1, 2, 3].map((i) => ({ type: 'ItemAdded' as const, data: { sku: `s${i}`, price: i } })),
    );
    await stream.append({ orderId }, [{ type: 'OrderShipped', data: {} }]);
    eventCount += (await stream.read({ orderId })).length;
  }
  records = insertsOnly(await readStreamRecords(events.streamArn as string));
});

const projection = () =>
  new Projection({
    stream,
    readModel: orderSummaries(client, viewsTable),
    key: (id) => ({ orderId: id.orderId }),
    initial: (id) => initialSummary(id.orderId),
    evolve: evolveSummary,
    checkpoint: 'version',
    outbox: { table: outboxTable, message: (event: OrderEvent) => ({ type: event.type, orderId: event.streamId, version: event.version }) },
  });

async function outboxItems(): Promise<number> {
  const page = await client.send(new ScanCommand({ TableName: outboxTable, ConsistentRead: true, Select: 'COUNT' }));
  return page.Count ?? 0;
}

test(`applied events reach the outbox in the row's transaction, once each, under concurrent redelivery; a crash before publishing is recovered in order per row (seed ${SEED})`, async () => {
  // Shuffled, duplicated, split, concurrent delivery: lost races write no messages, winners write theirs.
  const random = seededRandom(SEED);
  const copies = shuffle(
    records.flatMap((record) => (random() < 0.4 ? [record, record] : [record])),
    random,
  ).map(asLambdaRecord);
  const lanes: (typeof copies)[] = [[], [], [], []];
  copies.forEach((record) => lanes[randomInt(random, 0, 3)]?.push(record));
  await Promise.all(
    lanes.map(async (lane) => {
      for (let start = 0; start < lane.length; start += 3) {
        const result = await projection().processBatch(lane.slice(start, start + 3), { source: 'lambda' });
        expect(result.response.batchItemFailures).toEqual([]);
      }
    }),
  );
  for (const orderId of orderIds) {
    expect(await orderSummaries(client, viewsTable).get({ orderId }, { consistent: true })).toMatchObject(
      foldSummary(orderId, await stream.read({ orderId })),
    );
  }
  expect(await outboxItems()).toBe(eventCount); // exactly one message per event

  // The process "crashed" after the row writes: nothing was published. The relay, run on the outbox
  // stream's records, publishes every message; its first attempt dies after publishing one message of
  // o-2 (before deleting it), as a crash between publish and delete would.
  const published: OutboxMessage[] = [];
  let crashed = false;
  const relay = new OutboxRelay({
    client,
    table: outboxTable,
    publish: async (message) => {
      published.push(message);
      if (!crashed && (message.key as { orderId: string }).orderId === 'o-2') {
        crashed = true;
        throw new Error('crash after publishing, before the delete');
      }
    },
  });
  const outboxRecords = (await readStreamRecords(outboxStreamArn)).map(asLambdaRecord);
  const first = await relay.processBatch(outboxRecords, { source: 'lambda' });
  expect(first.failures).toHaveLength(1);
  expect(first.response.batchItemFailures).toHaveLength(1); // the o-2 row's earliest record, for a redelivery
  const retryFrom = outboxRecords.findIndex((record) => record.dynamodb?.SequenceNumber === first.response.batchItemFailures[0]?.itemIdentifier);
  const second = await relay.processBatch(outboxRecords.slice(retryFrom), { source: 'lambda' });
  expect(second.failures).toEqual([]);
  expect(await outboxItems()).toBe(0); // every message published, then removed

  // At least once, in order per row; the duplicate carries the same id.
  const ids = published.map((message) => message.id);
  expect(new Set(ids).size).toBe(eventCount);
  expect(ids.length).toBe(eventCount + 1);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  expect(duplicate).toMatch(/^Order#o-2#1$/);
  for (const orderId of orderIds) {
    const versions = published
      .filter((message) => (message.key as { orderId: string }).orderId === orderId)
      .map((message) => (message.message as { version: number }).version);
    expect([...new Set(versions)]).toEqual([1, 2, 3, 4, 5]);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
  }
});

test('drainAll recovers messages without the outbox stream', async () => {
  const orderId = 'o-drain';
  await stream.append({ orderId }, [
    { type: 'OrderPlaced', data: { customer: 'bo' } },
    { type: 'OrderShipped', data: {} },
  ]);
  await projection().applyBatch(await stream.read({ orderId }));
  const published: string[] = [];
  const result = await new OutboxRelay({ client, table: outboxTable, publish: async (message) => void published.push(message.id) }).drainAll();
  expect(result).toEqual({ published: 2, erased: 0, failures: [] });
  expect(published).toEqual(['Order#o-drain#1', 'Order#o-drain#2']);
});

test('a row applying more events than a transaction holds writes its messages in several transactions, in order', async () => {
  const orderId = 'o-long';
  await stream.append({ orderId }, [
    { type: 'OrderPlaced', data: { customer: 'cy' } },
    ...Array.from({ length: 80 }, (_, i) => ({ type: 'ItemAdded' as const, data: { sku: `a${i}`, price: 1 } })),
  ]);
  await stream.append(
    { orderId },
    Array.from({ length: 70 }, (_, i) => ({ type: 'ItemAdded' as const, data: { sku: `b${i}`, price: 1 } })),
  );
  const events = await stream.read({ orderId });
  const result = await projection().applyBatch([events[events.length - 1] as OrderEvent]); // one event: the rest is a gap read
  expect(result.outcomes[0]).toMatchObject({ status: 'applied', version: 151 });
  expect(result.outcomes[0]?.status === 'applied' && result.outcomes[0].applied.map((event) => event.version)).toEqual(
    events.map((event) => event.version),
  );
  const published: number[] = [];
  await new OutboxRelay({
    client,
    table: outboxTable,
    publish: async (message) => void published.push((message.message as { version: number }).version),
  }).drainAll();
  expect(published).toEqual(events.map((event) => event.version));
  expect(await orderSummaries(client, viewsTable).get({ orderId }, { consistent: true })).toMatchObject(foldSummary(orderId, events));
});
