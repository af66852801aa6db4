/**
 * What a call costs in requests, counted on the real client: a row read, at most one stream read to fill
 * a gap (none when the call holds the gap), one conditional write per row.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { Projection, ReadModel, eventsTableDefinition, readModelTableDefinition, type RowOutcome } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream, range, type OrderEvent } from '../support/orders';
import { seededRandom, shuffle } from '../support/random';
import { countRequests, type RequestLog } from '../support/requests';

const client = testClient();
const requests: RequestLog = countRequests(client);
/** Rows (by order id) whose next conditional write is lost, as if another writer got there first. */
const loseNextWrite = new Set<string>();
client.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName === 'PutItemCommand') {
      const body = JSON.stringify((args as { input?: unknown }).input);
      const orderId = [...loseNextWrite].find((id) => body.includes(`"${id}"`));
      if (orderId !== undefined) {
        loseNextWrite.delete(orderId);
        throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
      }
    }
    return next(args);
  },
  { step: 'initialize', name: 'loseNextWrite' },
);
let stream: ReturnType<typeof orderStream>;
let viewsTable: string;
let skuTable: string;

afterAll(() => client.destroy());

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'acct-events');
  stream = orderStream(client, events.name);
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'acct-views')).name;
  skuTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [skuTotals(client, name)]), 'acct-skus')).name;
});

/** A fresh read model (its own rows) per test, on the shared table. */
let models = 0;
function freshProjection() {
  const model = orderSummaries(client, viewsTable, `Summary${++models}`);
  return { model, projection: orderSummaryProjection(stream, model) };
}

/** Places an order and adds `items` items, in appends of a few events each; returns every event. */
async function order(orderId: string, items: number): Promise<OrderEvent[]> {
  await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: `c-${orderId}` } }], { expectedVersion: 0 });
  for (let added = 0; added < items; added += 3) {
    const count = Math.min(3, items - added);
    await stream.append(
      { orderId },
      Array.from({ length: count }, (_, i) => ({ type: 'ItemAdded' as const, data: { sku: `sku-${(added + i) % 2}`, price: added + i + 1 } })),
    );
  }
  return stream.read({ orderId });
}

/** Counts only what `run` sends. `get` counts row reads: a GetItem for one row, one BatchGetItem for up to 100. */
async function measure<T>(run: () => Promise<T>): Promise<{ result: T; get: number; query: number; put: number; total: number }> {
  requests.reset();
  const result = await run();
  const total = [...requests.counts.values()].reduce((sum, n) => sum + n, 0);
  return {
    result,
    get: requests.count('GetItemCommand') + requests.count('BatchGetItemCommand'),
    query: requests.count('QueryCommand'),
    put: requests.count('PutItemCommand'),
    total,
  };
}

const versions = (events: ReadonlyArray<{ version: number }>) => events.map((event) => event.version);
/** The versions an outcome applied, or its status when it failed. */
const appliedVersions = (outcome: RowOutcome<OrderEvent, unknown> | undefined) =>
  outcome?.status === 'applied' ? versions(outcome.applied) : outcome?.status;
const withoutTimestamps = <T extends object>(row: T | undefined) => row && { ...row, createdAt: undefined, updatedAt: undefined };

test('a record delivered before its predecessors is applied at once, its gap filled by one read: 1 GetItem, 1 Query, 1 PutItem', async () => {
  const events = await order('o-early', 4);
  expect(versions(events)).toEqual(range(1, 5));
  const { model, projection } = freshProjection();

  const cost = await measure(() => projection.applyBatch([events[4] as OrderEvent]));

  expect({ get: cost.get, query: cost.query, put: cost.put, total: cost.total }).toEqual({ get: 1, query: 1, put: 1, total: 3 });
  const [outcome] = cost.result.outcomes;
  expect(outcome).toMatchObject({ status: 'applied', version: 5, alreadyApplied: [], positions: [0] });
  expect(appliedVersions(outcome)).toEqual([1, 2, 3, 4, 5]);
  expect(withoutTimestamps(await model.get({ orderId: 'o-early' }, { consistent: true }))).toEqual(withoutTimestamps(foldSummary('o-early', events)));
});

test('a batch holding the whole gap, shuffled and with duplicates, reads no events and writes once', async () => {
  const events = await order('o-whole', 7);
  const { model, projection } = freshProjection();
  const random = seededRandom(7);
  const batch = shuffle([...events, ...events.filter((_, i) => i % 2 === 0)], random);

  const cost = await measure(() => projection.applyBatch(batch));

  expect({ get: cost.get, query: cost.query, put: cost.put, total: cost.total }).toEqual({ get: 1, query: 0, put: 1, total: 2 });
  const [outcome] = cost.result.outcomes;
  expect(appliedVersions(outcome)).toEqual(range(1, 8));
  expect(outcome?.positions).toHaveLength(batch.length);
  expect(withoutTimestamps(await model.get({ orderId: 'o-whole' }, { consistent: true }))).toEqual(withoutTimestamps(foldSummary('o-whole', events)));
});

test('n events of one row cost one PutItem; k rows cost k writes and one BatchGetItem', async () => {
  const rows = await Promise.all(['o-n1', 'o-n2', 'o-n3'].map(async (orderId, i) => ({ orderId, events: await order(orderId, 10 + 5 * i) })));
  const { model, projection } = freshProjection();
  const batch = shuffle(
    rows.flatMap((row) => row.events),
    seededRandom(11),
  );

  const cost = await measure(() => projection.applyBatch(batch));

  expect(batch).toHaveLength(11 + 16 + 21);
  expect({ get: cost.get, query: cost.query, put: cost.put }).toEqual({ get: 1, query: 0, put: 3 });
  for (const { orderId, events } of rows) {
    expect(withoutTimestamps(await model.get({ orderId }, { consistent: true }))).toEqual(withoutTimestamps(foldSummary(orderId, events)));
  }
});

test('a later call reads at most one Query per row, and none when its events follow the checkpoint', async () => {
  const ids = ['o-later1', 'o-later2', 'o-later3'];
  const first = await Promise.all(ids.map((orderId) => order(orderId, 2)));
  const { model, projection } = freshProjection();
  await projection.applyBatch(first.flat());

  // Every row moves on by several events; the call delivers only each row's last one.
  for (const orderId of ids)
    await stream.append(
      { orderId },
      [1, 2, 3].map((i) => ({ type: 'ItemAdded' as const, data: { sku: 'late', price: i } })),
    );
  const later = await Promise.all(ids.map((orderId) => stream.read({ orderId })));
  const cost = await measure(() => projection.applyBatch(later.map((events) => events[events.length - 1] as OrderEvent)));

  expect({ get: cost.get, query: cost.query, put: cost.put }).toEqual({ get: 1, query: 3, put: 3 });
  for (const outcome of cost.result.outcomes) expect(appliedVersions(outcome)).toEqual([4, 5, 6]);
  for (const [i, orderId] of ids.entries()) {
    expect(withoutTimestamps(await model.get({ orderId }, { consistent: true }))).toEqual(
      withoutTimestamps(foldSummary(orderId, later[i] as OrderEvent[])),
    );
  }

  // The next event of each row follows its checkpoint: nothing to fill.
  for (const orderId of ids) await stream.append({ orderId }, [{ type: 'OrderShipped', data: {} }]);
  const next = await Promise.all(ids.map((orderId) => stream.read({ orderId }, { fromVersion: 7 })));
  const contiguous = await measure(() => projection.applyBatch(next.flat()));
  expect({ get: contiguous.get, query: contiguous.query, put: contiguous.put }).toEqual({ get: 1, query: 0, put: 3 });

  // A redelivery of everything is skipped by the checkpoints: one read of the rows, no stream read, no write.
  const redelivered = await measure(() => projection.applyBatch(shuffle([...first.flat(), ...later.flat()], seededRandom(3))));
  expect({ get: redelivered.get, query: redelivered.query, put: redelivered.put }).toEqual({ get: 1, query: 0, put: 0 });
  for (const outcome of redelivered.result.outcomes) {
    expect(outcome.status === 'applied' && { applied: outcome.applied.length, already: versions(outcome.alreadyApplied) }).toEqual({
      applied: 0,
      already: range(1, 6),
    });
  }
});

test('a lost write re-reads the row but not the gap: 2 GetItem, 1 Query, 2 PutItem', async () => {
  const events = await order('o-lost', 4);
  const { model, projection } = freshProjection();
  loseNextWrite.add('o-lost');

  const cost = await measure(() => projection.applyBatch([events[4] as OrderEvent]));

  expect(loseNextWrite.size).toBe(0);
  expect({ get: cost.get, query: cost.query, put: cost.put }).toEqual({ get: 2, query: 1, put: 2 });
  expect(appliedVersions(cost.result.outcomes[0])).toEqual([1, 2, 3, 4, 5]);
  expect(withoutTimestamps(await model.get({ orderId: 'o-lost' }, { consistent: true }))).toEqual(withoutTimestamps(foldSummary('o-lost', events)));
});

// One row per order and SKU: the SKU comes from each ItemAdded; OrderPlaced and OrderShipped address no row.
const skuTotalSchema = z.object({ orderId: z.string(), sku: z.string(), items: z.number(), total: z.number(), seq: z.number() });
function skuTotals(dynamo: DynamoDBClient, table: string, name = 'SkuTotal') {
  return new ReadModel({
    client: dynamo,
    table,
    name,
    schema: skuTotalSchema,
    key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: ['sku'] } },
  });
}
function skuProjection(model: ReturnType<typeof skuTotals>) {
  return new Projection({
    stream,
    readModel: model,
    key: (streamId, event) => (event.type === 'ItemAdded' ? { orderId: streamId.orderId, sku: event.data.sku } : undefined),
    initial: (streamId, event) => ({ orderId: streamId.orderId, sku: event.type === 'ItemAdded' ? event.data.sku : '', items: 0, total: 0 }),
    evolve: (state, event) => (event.type === 'ItemAdded' ? { ...state, items: state.items + 1, total: state.total + event.data.price } : state),
    checkpoint: 'seq',
  });
}

test('rows keyed by an event field: events of other rows and ignored events fill each row gap, so nothing is read', async () => {
  // v1 OrderPlaced (no row), v2..v7 ItemAdded alternating sku-0 / sku-1, v8 OrderShipped (no row).
  const events = await order('o-sku', 6);
  await stream.append({ orderId: 'o-sku' }, [{ type: 'OrderShipped', data: {} }]);
  const all = await stream.read({ orderId: 'o-sku' });
  const model = skuTotals(client, skuTable, 'SkuTotalA');
  const projection = skuProjection(model);
  const batch = shuffle(all, seededRandom(5));

  const cost = await measure(() => projection.applyBatch(batch));

  expect({ get: cost.get, query: cost.query, put: cost.put, total: cost.total }).toEqual({ get: 1, query: 0, put: 2, total: 3 });
  expect([...cost.result.ignored].sort((a, b) => a - b)).toEqual(
    batch.flatMap((event, position) => (event.type === 'ItemAdded' ? [] : [position])).sort((a, b) => a - b),
  );
  const bySku = new Map(cost.result.outcomes.map((outcome) => [String(outcome.key?.['sku']), outcome]));
  expect(appliedVersions(bySku.get('sku-0'))).toEqual([2, 4, 6]);
  expect(appliedVersions(bySku.get('sku-1'))).toEqual([3, 5, 7]);
  const rows = await Promise.all(['sku-0', 'sku-1'].map((sku) => model.get({ orderId: 'o-sku', sku }, { consistent: true })));
  expect(rows.map(withoutTimestamps)).toEqual([
    { orderId: 'o-sku', sku: 'sku-0', items: 3, total: 1 + 3 + 5, seq: 6, createdAt: undefined, updatedAt: undefined },
    { orderId: 'o-sku', sku: 'sku-1', items: 3, total: 2 + 4 + 6, seq: 7, createdAt: undefined, updatedAt: undefined },
  ]);
  expect(events).toHaveLength(7);
});

test('rows keyed by an event field: a lone late event reads its gap once and keeps only its row events', async () => {
  await order('o-sku-late', 6); // v2..v7 alternate sku-0 / sku-1
  const all = await stream.read({ orderId: 'o-sku-late' });
  const projection = skuProjection(skuTotals(client, skuTable, 'SkuTotalB'));

  const cost = await measure(() => projection.applyBatch([all[5] as OrderEvent])); // v6, sku-0

  expect({ get: cost.get, query: cost.query, put: cost.put }).toEqual({ get: 1, query: 1, put: 1 });
  const [outcome] = cost.result.outcomes;
  expect(outcome).toMatchObject({ status: 'applied', key: { orderId: 'o-sku-late', sku: 'sku-0' }, version: 6 });
  expect(appliedVersions(outcome)).toEqual([2, 4, 6]);

  // Its neighbour row gets v7 alone: v1..v6 are read again for it (one Query), keeping sku-1's own.
  const next = await measure(() => projection.applyBatch([all[6] as OrderEvent]));
  expect({ get: next.get, query: next.query, put: next.put }).toEqual({ get: 1, query: 1, put: 1 });
  expect(appliedVersions(next.result.outcomes[0])).toEqual([3, 5, 7]);
});
