import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { z } from 'zod';
import {
  ConfigurationError,
  Projection,
  ReadModel,
  StreamRecordIdentifierMissingError,
  eventsTableDefinition,
  readModelTableDefinition,
  skipEvent,
} from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream } from '../support/orders';
import { countRequests } from '../support/requests';
import { sensorStream, zoneProjection, zoneReadings } from '../support/sensors';
import { asLambdaRecord, eventKeysOf, insertsOnly, readStreamRecords } from '../support/stream-records';

const client = testClient();
const requests = countRequests(client);
let eventsTable: string;
let streamArn: string;
let viewsTable: string;
let orders: ReturnType<typeof orderStream>;
let sensors: ReturnType<typeof sensorStream>;
let modelCount = 0;
/** Fresh rows for each test: a new model name in the shared table. */
const freshName = (base: string) => `${base}${++modelCount}`;

afterAll(() => client.destroy());

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'events');
  eventsTable = events.name;
  streamArn = events.streamArn as string;
  viewsTable = (
    await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name), zoneReadings(client, name)]), 'views')
  ).name;
  orders = orderStream(client, eventsTable);
  sensors = sensorStream(client, eventsTable);
});

async function placeOrder(orderId: string, prices: number[], shipped = false) {
  await orders.append({ orderId }, [
    { type: 'OrderPlaced', data: { customer: 'ada' } },
    ...prices.map((price, i) => ({ type: 'ItemAdded' as const, data: { sku: `s${i}`, price } })),
    ...(shipped ? [{ type: 'OrderShipped' as const, data: {} }] : []),
  ]);
  return orders.read({ orderId });
}

test('skipEvent leaves the row alone and keeps the checkpoint below a trailing skipped event, decided again later', async () => {
  const model = orderSummaries(client, viewsTable, freshName('Skip'));
  const projection = new Projection({
    stream: orders,
    readModel: model,
    key: (id) => ({ orderId: id.orderId }),
    initial: (id) => ({ orderId: id.orderId, customer: '', status: 'new', items: 0, total: 0, version: 0 }),
    evolve: (state, event) => (event.type === 'ItemAdded' ? { ...state, items: state.items + 1 } : skipEvent),
    checkpoint: 'version',
  });
  const events = await placeOrder('skip-1', [5, 6], true); // v1 placed (skip), v2, v3 items, v4 shipped (skip)
  const placedOnly = await projection.applyBatch([events[0]!]);
  expect(placedOnly.outcomes[0]).toMatchObject({ status: 'applied', applied: [], skipped: [events[0]], version: 0 });
  expect(await model.get({ orderId: 'skip-1' }, { consistent: true })).toBeUndefined(); // all skipped: not written

  const all = await projection.applyBatch(events);
  expect(all.outcomes[0]).toMatchObject({ status: 'applied', applied: [events[1], events[2]], skipped: [events[0], events[3]], version: 3 });
  expect(await model.get({ orderId: 'skip-1' }, { consistent: true })).toMatchObject({ items: 2, version: 3 });
  // The trailing skipped v4 stays above the checkpoint: redelivered, it is decided again (and skipped again).
  const again = await projection.applyBatch([events[3]!]);
  expect(again.outcomes[0]).toMatchObject({ applied: [], alreadyApplied: [], skipped: [events[3]], version: 3 });
});

test('terminal rejects an event and the fold goes on; rejected events alone never create a row', async () => {
  const model = zoneReadings(client, viewsTable, freshName('Zone'));
  const projection = zoneProjection(sensors, model);
  const id = { sensorId: 'term-1' };
  await sensors.append(id, [{ type: 'SensorReading', data: { zone: 'a', celsius: 20 } }]); // v1: zone a not placed
  const first = await projection.applyBatch(await sensors.read(id));
  expect(first.outcomes[0]).toMatchObject({ status: 'applied', applied: [], version: 0 });
  expect(first.outcomes[0]?.status === 'applied' && first.outcomes[0].rejected.map((r) => r.event.version)).toEqual([1]);
  expect(await model.get({ sensorId: 'term-1', zone: 'a' }, { consistent: true })).toBeUndefined();

  await sensors.append(id, [
    { type: 'SensorPlaced', data: { zone: 'a' } }, // v2
    { type: 'SensorReading', data: { zone: 'a', celsius: 31 } }, // v3
  ]);
  const [, , third] = await sensors.read(id);
  // Delivered alone, v3 gap-fills v1..v2 from the store: v1 is rejected again (deterministic), v2 and v3 apply.
  const second = await projection.applyBatch([third!]);
  expect(second.outcomes[0]).toMatchObject({ status: 'applied', version: 3 });
  expect(second.outcomes[0]?.status === 'applied' && second.outcomes[0].applied.map((e) => e.version)).toEqual([2, 3]);
  expect(second.outcomes[0]?.status === 'applied' && second.outcomes[0].rejected.map((r) => r.event.version)).toEqual([1]);
  expect(await model.get({ sensorId: 'term-1', zone: 'a' }, { consistent: true })).toMatchObject({ readings: 1, maxCelsius: 31, seq: 3 });
});

test('several rows per stream: each row keeps its own checkpoint, a gap read keeps only its events; ignored events cost nothing', async () => {
  const model = zoneReadings(client, viewsTable, freshName('Zones'));
  const projection = zoneProjection(sensors, model);
  const id = { sensorId: 'rows-1' };
  await sensors.append(id, [
    { type: 'SensorPlaced', data: { zone: 'a' } },
    { type: 'SensorPlaced', data: { zone: 'b' } },
    { type: 'SensorReading', data: { zone: 'a', celsius: 10 } },
    { type: 'SensorNote', data: { text: 'checked' } },
    { type: 'SensorReading', data: { zone: 'b', celsius: 40 } },
  ]);
  const events = await sensors.read(id);
  requests.reset();
  const notes = await projection.applyBatch([events[3]!]);
  expect(notes).toEqual({ outcomes: [], ignored: [0], ignoredEvents: [events[3]], stats: { rowsWritten: 0, gapReads: 0, lostRaces: 0 } });
  expect(requests.counts.size).toBe(0); // an ignored event: no read, no write

  const result = await projection.applyBatch([events[4]!]); // zone b's reading only: gap-filled, zone a untouched
  expect(result.outcomes).toHaveLength(1);
  expect(result.outcomes[0]?.status === 'applied' && result.outcomes[0].applied.map((e) => e.version)).toEqual([2, 5]);
  expect(await model.get({ sensorId: 'rows-1', zone: 'b' }, { consistent: true })).toMatchObject({ readings: 1, maxCelsius: 40, seq: 5 });
  expect(await model.get({ sensorId: 'rows-1', zone: 'a' }, { consistent: true })).toBeUndefined();

  await projection.applyBatch(events);
  expect(await model.get({ sensorId: 'rows-1', zone: 'a' }, { consistent: true })).toMatchObject({ readings: 1, maxCelsius: 10, seq: 3 });
});

test('toItem recomputes a hidden attribute on every write; reads hide it unless asked', async () => {
  const model = zoneReadings(client, viewsTable, freshName('Hidden'));
  const projection = zoneProjection(sensors, model);
  const id = { sensorId: 'hidden-1' };
  await sensors.append(id, [
    { type: 'SensorPlaced', data: { zone: 'a' } },
    { type: 'SensorReading', data: { zone: 'a', celsius: 12 } },
  ]);
  await projection.applyBatch(await sensors.read(id));
  expect(await model.get({ sensorId: 'hidden-1', zone: 'a' }, { consistent: true })).not.toHaveProperty('alertKey');
  expect(await model.get({ sensorId: 'hidden-1', zone: 'a' }, { consistent: true, includeHidden: true })).toMatchObject({ alertKey: 'normal' });
  await sensors.append(id, [{ type: 'SensorReading', data: { zone: 'a', celsius: 35 } }]);
  await projection.catchUp(id);
  expect(await model.get({ sensorId: 'hidden-1', zone: 'a' }, { consistent: true, includeHidden: true })).toMatchObject({ alertKey: 'hot', seq: 3 });
});

test('a checkpoint offset stores version + offset, and reads and conditions go through the same mapping', async () => {
  const model = orderSummaries(client, viewsTable, freshName('Offset'));
  const projection = new Projection({
    stream: orders,
    readModel: model,
    key: (id) => ({ orderId: id.orderId }),
    initial: (id) => ({ orderId: id.orderId, customer: '', status: 'new', items: 0, total: 0, version: 0 }),
    evolve: (state, event) => (event.type === 'ItemAdded' ? { ...state, items: state.items + 1, total: state.total + event.data.price } : state),
    checkpoint: { field: 'version', offset: -1 },
  });
  const events = await placeOrder('offset-1', [3, 4]);
  await projection.applyBatch(events.slice(0, 2));
  expect(await model.get({ orderId: 'offset-1' }, { consistent: true })).toMatchObject({ items: 1, version: 1 }); // v2 stored as 1
  const redelivered = await projection.applyBatch(events);
  expect(redelivered.outcomes[0]).toMatchObject({ applied: [events[2]], alreadyApplied: [events[0], events[1]], version: 3 });
  expect(await model.get({ orderId: 'offset-1' }, { consistent: true })).toMatchObject({ items: 2, total: 7, version: 2 });
});

test('an optional checkpoint: a row written before the projection gets every event, its first write conditioned on no checkpoint', async () => {
  const model = new ReadModel({
    client,
    table: viewsTable,
    name: freshName('Legacy'),
    schema: z.object({ orderId: z.string(), items: z.number(), note: z.string(), version: z.number().optional() }),
    key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
  });
  await model.put({ orderId: 'legacy-1', items: 0, note: 'kept' });
  const projection = new Projection({
    stream: orders,
    readModel: model,
    key: (id) => ({ orderId: id.orderId }),
    initial: (id) => ({ orderId: id.orderId, items: 0, note: '' }),
    evolve: (state, event) => (event.type === 'ItemAdded' ? { ...state, items: state.items + 1 } : state),
    checkpoint: 'version',
  });
  const events = await placeOrder('legacy-1', [1, 2]);
  const result = await projection.applyBatch(events.slice(1));
  expect(result.outcomes[0]).toMatchObject({ status: 'applied', version: 3 });
  expect(await model.get({ orderId: 'legacy-1' }, { consistent: true })).toMatchObject({ items: 2, note: 'kept', version: 3 });
});

test('decode failures are reported, or acknowledged with onDecodeFailure: skip; a failed record without identifier is an error', async () => {
  const model = orderSummaries(client, viewsTable, freshName('Decode'));
  const projection = orderSummaryProjection(orders, model);
  // One event per append, so each is a record of its own: the second one is broken, the first one is not.
  await orders.append({ orderId: 'decode-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  await orders.append({ orderId: 'decode-1' }, [{ type: 'ItemAdded', data: { sku: 's0', price: 1 } }]);
  const records = insertsOnly(await readStreamRecords(streamArn)).filter((r) => eventKeysOf(r.dynamodb?.NewImage).streamId === 'decode-1');
  const broken: _Record = JSON.parse(JSON.stringify(records[1])) as _Record;
  broken.dynamodb!.NewImage!['data'] = { M: { sku: { S: 'x' }, price: { S: 'not a number' } } };
  broken.dynamodb!.SequenceNumber = '99999999999999999999';
  const batch = [records[0]!, broken];

  const reported = await projection.processBatch(batch, { source: 'lambda' });
  expect(reported.decodeFailures.map((f) => f.position)).toEqual([1]);
  expect(reported.response).toEqual({ batchItemFailures: [{ itemIdentifier: '99999999999999999999' }] });

  const skipped = await projection.processBatch(batch, { source: 'lambda', onDecodeFailure: 'skip' });
  expect(skipped.decodeFailures).toHaveLength(1);
  expect(skipped.response).toEqual({ batchItemFailures: [] });

  const anonymous = { ...asLambdaRecord(broken), dynamodb: { ...asLambdaRecord(broken).dynamodb, SequenceNumber: undefined } };
  await expect(projection.processBatch([anonymous], { source: 'lambda' })).rejects.toBeInstanceOf(StreamRecordIdentifierMissingError);
  await expect(projection.processBatch([anonymous], { source: 'pipe' })).resolves.toMatchObject({
    response: { batchItemFailures: [{ itemIdentifier: broken.eventID }] },
  });
});

test('several projections on one feed: each record decoded once and routed by stream; other streams come back unrouted', async () => {
  const summaries = orderSummaryProjection(orders, orderSummaries(client, viewsTable, freshName('Feed')));
  const zones = zoneProjection(sensors, zoneReadings(client, viewsTable, freshName('FeedZones')));
  const orderEvents = await placeOrder('feed-1', [2, 3]);
  await sensors.append({ sensorId: 'feed-s' }, [{ type: 'SensorPlaced', data: { zone: 'z' } }]);
  const records = insertsOnly(await readStreamRecords(streamArn)).filter((r) =>
    ['feed-1', 'feed-s'].includes(eventKeysOf(r.dynamodb?.NewImage).streamId ?? ''),
  );
  const result = await processBatch(records.map(asLambdaRecord), { projections: { summaries, zones }, streams: { Order: orders }, source: 'lambda' });
  expect(result.outcomes.summaries).toHaveLength(1);
  expect(result.outcomes.zones).toHaveLength(1);
  expect(result.unrouted.map((u) => [u.stream, u.event.version])).toEqual(orderEvents.map((e) => ['Order', e.version]));
  expect(result.response.batchItemFailures).toEqual([]);
  await expect(processBatch([], { projections: { summaries }, streams: { Other: orderStream(client, eventsTable) } })).rejects.toBeInstanceOf(
    ConfigurationError,
  );
});

test('catchUp brings the row of the latest event to the head; rebuild re-derives rows from version 1 and returns no events', async () => {
  const model = orderSummaries(client, viewsTable, freshName('Rebuild'));
  const projection = orderSummaryProjection(orders, model);
  const events = await placeOrder('rebuild-1', [10, 20, 30], true);
  await projection.applyBatch([events[0]!]);
  const caughtUp = await projection.catchUp({ orderId: 'rebuild-1' });
  expect(caughtUp?.applied.map((e) => e.version)).toEqual([2, 3, 4, 5]);
  expect(await model.get({ orderId: 'rebuild-1' }, { consistent: true })).toMatchObject(foldSummary('rebuild-1', events));

  await model.put({ ...foldSummary('rebuild-1', events), total: -1 }); // a corrupted row
  const rebuilt = await projection.rebuild({ orderId: 'rebuild-1' });
  expect(rebuilt).toEqual({ rows: [{ key: { orderId: 'rebuild-1' }, version: 5 }] });
  expect(await model.get({ orderId: 'rebuild-1' }, { consistent: true })).toMatchObject(foldSummary('rebuild-1', events));
});

test('a row addressed by two stream instances fails instead of mixing checkpoints', async () => {
  const model = orderSummaries(client, viewsTable, freshName('Mixed'));
  const projection = new Projection({
    stream: orders,
    readModel: model,
    key: () => ({ orderId: 'everything' }),
    initial: () => ({ orderId: 'everything', customer: '', status: 'new', items: 0, total: 0, version: 0 }),
    evolve: (state) => state,
    checkpoint: 'version',
  });
  const a = await placeOrder('mixed-a', []);
  const b = await placeOrder('mixed-b', []);
  const result = await projection.applyBatch([...a, ...b]);
  expect(result.outcomes[0]).toMatchObject({ status: 'failed', error: { code: 'projector.multipleSources' } });
});

test('configuration is checked at construction', () => {
  const model = orderSummaries(client, viewsTable, 'Config');
  const base = { stream: orders, readModel: model, key: () => ({}), initial: () => ({}) as never, evolve: (s: never) => s };
  expect(() => new Projection({ ...base, checkpoint: 'customer' })).toThrow(ConfigurationError);
  expect(() => new Projection({ ...base, checkpoint: 'missing' })).toThrow(ConfigurationError);
  expect(() => new Projection({ ...base, checkpoint: 'version', concurrency: 0 })).toThrow(ConfigurationError);
  expect(() => new Projection({ ...base, checkpoint: 'version', retry: { attempts: 0 } })).toThrow(ConfigurationError);
});
