import { z } from 'zod';
import { EventStream, Projection, ReadModel, eventsTableDefinition, readModelTableDefinition, removeRow } from 'dynafold';
import { projectionSpec } from 'dynafold/testing';
import { createTestTable, testClient } from '../support/dynamo';
import { shuffle, seededRandom } from '../support/random';

const client = testClient();
afterAll(() => client.destroy());

const accountEvents = {
  Opened: z.object({ owner: z.string() }),
  Deposited: z.object({ amount: z.number() }),
  Closed: z.object({}),
  Reopened: z.object({ owner: z.string() }),
};
const accountSchema = z.object({ accountId: z.string(), owner: z.string(), balance: z.number(), version: z.number() });

let stream: EventStream<'Account', readonly ['accountId'], typeof accountEvents>;
let viewsTable: string;
let models = 0;

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'events');
  stream = new EventStream({ client, table: events.name, name: 'Account', streamId: ['accountId'], events: accountEvents });
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [accounts()]), 'views')).name;
});

function accounts(name = 'Account', table = viewsTable) {
  return new ReadModel({
    client,
    table: table ?? 'placeholder',
    name,
    schema: accountSchema,
    key: { pk: { field: 'pk', composite: ['accountId'] }, sk: { field: 'sk', composite: [] } },
    indexes: { byOwner: { name: 'gsi1', pk: { field: 'gsi1pk', composite: ['owner'] }, sk: { field: 'gsi1sk', composite: ['accountId'] } } },
  });
}

function projection(model: ReturnType<typeof accounts>, options: { recreate?: boolean; ttlSeconds?: number } = {}, source = stream) {
  return new Projection({
    stream: source,
    readModel: model,
    key: (id) => ({ accountId: id.accountId }),
    initial: (id) => ({ accountId: id.accountId, owner: '', balance: 0, version: 0 }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'Opened':
        case 'Reopened':
          return { ...state, owner: event.data.owner, balance: 0 };
        case 'Deposited':
          return { ...state, balance: state.balance + event.data.amount };
        case 'Closed':
          return removeRow;
      }
    },
    checkpoint: 'version',
    ...(options.recreate === true ? { recreate: (event: { type: string }) => event.type === 'Reopened' } : {}),
    ...(options.ttlSeconds === undefined ? {} : { tombstoneTtl: { durationMs: options.ttlSeconds * 1000 } }),
  });
}

test('a removed row stays as a hidden tombstone with its checkpoint; redelivered and late events do not resurrect it', async () => {
  const model = accounts(`Closed${++models}`);
  const accountsProjection = projection(model, { ttlSeconds: 3 * 24 * 3600 });
  const id = { accountId: 'a-1' };
  await stream.append(id, [
    { type: 'Opened', data: { owner: 'ada' } },
    { type: 'Deposited', data: { amount: 5 } },
    { type: 'Closed', data: {} },
  ]);
  const events = await stream.read(id);
  const closed = await accountsProjection.applyBatch(shuffle(events, seededRandom(1)));
  expect(closed.outcomes[0]).toMatchObject({ status: 'applied', version: 3 });
  expect(await model.get(id, { consistent: true })).toBeUndefined();
  expect((await model.query('byOwner', { owner: 'ada' })).items).toEqual([]);
  const tombstone = await model.get(id, { consistent: true, includeRemoved: true });
  expect(tombstone).toMatchObject({ accountId: 'a-1', version: 3, removed: true });
  const ttl = (await model.getItem(id))?.['ttl'];
  expect(typeof ttl === 'number' && ttl > Date.now() / 1000 + 2 * 24 * 3600).toBe(true);

  // Every event delivered again, in any order: all already applied, nothing written.
  const redelivered = await accountsProjection.applyBatch(shuffle([...events, ...events], seededRandom(2)));
  expect(redelivered.outcomes[0]).toMatchObject({ applied: [], version: 3 });
  // A later event after the removal is not a recreating one: skipped, the row stays removed.
  await stream.append(id, [{ type: 'Deposited', data: { amount: 7 } }]);
  const late = await accountsProjection.catchUp(id);
  expect(late).toMatchObject({ applied: [], skipped: [{ version: 4 }] });
  expect(await model.get(id, { consistent: true })).toBeUndefined();
});

test('a recreating event brings the row back from initial when the projection says so', async () => {
  const model = accounts(`Reopen${++models}`);
  const accountsProjection = projection(model, { recreate: true });
  const id = { accountId: 'a-2' };
  await stream.append(id, [
    { type: 'Opened', data: { owner: 'ada' } },
    { type: 'Deposited', data: { amount: 5 } },
    { type: 'Closed', data: {} },
    { type: 'Deposited', data: { amount: 1 } }, // after the removal, before the reopening: ignored
    { type: 'Reopened', data: { owner: 'grace' } },
    { type: 'Deposited', data: { amount: 2 } },
  ]);
  const events = await stream.read(id);
  await accountsProjection.applyBatch(events.slice(0, 3));
  expect(await model.get(id, { consistent: true })).toBeUndefined();
  const reopened = await accountsProjection.applyBatch([events[5]!]); // gap-filled from the tombstone's checkpoint
  expect(reopened.outcomes[0]).toMatchObject({ status: 'applied', version: 6, skipped: [{ version: 4 }] });
  expect(await model.get(id, { consistent: true })).toMatchObject({ owner: 'grace', balance: 2, version: 6 });
  expect(await model.get(id, { consistent: true })).not.toHaveProperty('removed');
  // A rebuild from version 1 gives the same row.
  await accountsProjection.rebuild(id);
  expect(await model.get(id, { consistent: true })).toMatchObject({ owner: 'grace', balance: 2, version: 6 });
});

test('removal and recreation hold however Lambda delivers the records (projection spec: in order, shuffled, duplicated, ten lanes)', async () => {
  const reopened: string[] = [];
  await projectionSpec(({ events, readModels }) =>
    projection(
      accounts('SpecAccount', readModels),
      { recreate: true },
      new EventStream({ client, table: events, name: 'Account', streamId: ['accountId'], events: accountEvents }),
    ),
  )
    .given([
      {
        streamId: { accountId: 'a-1' },
        events: [
          { type: 'Opened', data: { owner: 'ada' } },
          { type: 'Deposited', data: { amount: 5 } },
        ],
      },
      {
        streamId: { accountId: 'a-2' },
        events: [
          { type: 'Opened', data: { owner: 'bob' } },
          { type: 'Closed', data: {} },
        ],
      },
      { streamId: { accountId: 'a-1' }, events: [{ type: 'Closed', data: {} }] },
      {
        streamId: { accountId: 'a-2' },
        events: [
          { type: 'Deposited', data: { amount: 1 } },
          { type: 'Reopened', data: { owner: 'grace' } },
        ],
      }, // v3 ignored: removed
      { streamId: { accountId: 'a-2' }, events: [{ type: 'Deposited', data: { amount: 2 } }] },
    ])
    .thenRows(
      [
        { key: { accountId: 'a-1' }, row: undefined },
        { key: { accountId: 'a-2' }, row: { accountId: 'a-2', owner: 'grace', balance: 2, version: 5 } },
      ],
      async ({ mode, projection: spec }) => {
        expect(await spec.readModel.get({ accountId: 'a-1' }, { consistent: true, includeRemoved: true })).toMatchObject({
          version: 3,
          removed: true,
        });
        expect((await spec.readModel.query('byOwner', { owner: 'grace' })).items.map((row) => row.accountId)).toEqual(['a-2']);
        reopened.push(mode);
      },
    );
  expect(reopened).toEqual(['inOrder', 'shuffled', 'duplicated', 'lanes']);
});
