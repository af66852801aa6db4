import { z } from 'zod';
import { EventStream, Projection, ReadModel, eventsTableDefinition, readModelTableDefinition, type StreamEvent } from 'dynafold';
import { outboxTableDefinition } from 'dynafold/outbox';
import { createTestTable, testClient } from '../support/dynamo';
import { accountModel, accountsProjection, eventKey, ledgerStream, type LedgerMessage } from '../support/ledger';
import { outboxMessages } from '../support/ledger-case';

const client = testClient();
afterAll(() => client.destroy());

let eventsTable: string;
let viewsTable: string;

beforeAll(async () => {
  eventsTable = (await createTestTable(client, eventsTableDefinition, 'rebuild-events')).name;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [accountModel(client, name, 'Any')]), 'rebuild-views')).name;
});

function appliedKeys(outcomes: ReadonlyArray<{ status: string; applied?: ReadonlyArray<StreamEvent> }>): string[] {
  return outcomes.flatMap((outcome) => (outcome.status === 'applied' ? (outcome.applied ?? []).map(eventKey) : []));
}

test('a rebuild during live delivery re-derives what the row applied and leaves later events to their delivery: each in one call’s applied, each with its message', async () => {
  const outbox = (await createTestTable(client, outboxTableDefinition, 'rebuild-outbox')).name;
  const stream = ledgerStream(client, eventsTable, 'A');
  const accounts = accountsProjection(stream, accountModel(client, viewsTable, 'Rebuilt'), { revision: true, outbox });
  const id = { id: 'live' };
  const first = await stream.append(id, [
    { type: 'Opened', data: { owner: 'a' } },
    { type: 'Deposited', data: { owner: 'a', amount: 2 } },
  ]);
  const applied = appliedKeys((await accounts.applyBatch(first.events)).outcomes);
  const later = await stream.append(id, [
    { type: 'Deposited', data: { owner: 'a', amount: 3 } },
    { type: 'Deposited', data: { owner: 'a', amount: 4 } },
  ]);

  // The rebuild runs before the later events are delivered.
  expect(await accounts.rebuild(id)).toEqual({ rows: [{ key: { id: 'live' }, version: 2 }] });
  expect(await accountModel(client, viewsTable, 'Rebuilt').get(id, { consistent: true })).toMatchObject({ balance: 2, version: 2 });
  applied.push(...appliedKeys((await accounts.applyBatch(later.events)).outcomes));

  const all = [...first.events, ...later.events].map(eventKey);
  expect(applied).toEqual(all);
  expect((await outboxMessages(client, outbox)).map((message) => (message.message as LedgerMessage).event)).toEqual(all);
  expect(await accountModel(client, viewsTable, 'Rebuilt').get(id, { consistent: true })).toMatchObject({ balance: 9, version: 4 });
});

describe('a row of a Projection is fed by one stream instance, across calls too', () => {
  const tagEvents = { Tagged: z.object({ tag: z.string() }) };
  const tagSchema = z.object({ tag: z.string(), count: z.number(), version: z.number() });

  test('events of another instance addressing the row fail with projector.multipleSources, in every later call, and leave the row alone', async () => {
    const stream = new EventStream({ client, table: eventsTable, name: 'Tag', streamId: ['id'], events: tagEvents });
    const model = new ReadModel({
      client,
      table: viewsTable,
      name: 'Tags',
      schema: tagSchema,
      key: { pk: { field: 'pk', composite: ['tag'] }, sk: { field: 'sk', composite: [] } },
    });
    // A key that ignores the stream id: every instance tagging "x" addresses one row.
    const tags = new Projection({
      stream,
      readModel: model,
      key: (_id, event) => ({ tag: event.data.tag }),
      initial: (_id, event) => ({ tag: event.data.tag, count: 0, version: 0 }),
      evolve: (state) => ({ ...state, count: state.count + 1 }),
      checkpoint: 'version',
    });
    const a = await stream.append({ id: 'a' }, [{ type: 'Tagged', data: { tag: 'x' } }]);
    const b = await stream.append(
      { id: 'b' },
      [1, 2, 3].map(() => ({ type: 'Tagged' as const, data: { tag: 'x' } })),
    );
    expect((await tags.applyBatch(a.events)).outcomes[0]).toMatchObject({ status: 'applied', streamId: 'a', version: 1 });

    for (const event of [b.events[0], b.events[2]]) {
      const outcome = (await tags.applyBatch([event as (typeof b.events)[number]])).outcomes[0];
      expect(outcome).toMatchObject({ status: 'failed', error: { code: 'projector.multipleSources' } });
      expect(String((outcome as { error: Error }).error.message)).toMatch(/Tag#a, Tag#b/);
    }
    expect(await model.get({ tag: 'x' }, { consistent: true })).toMatchObject({ count: 1, version: 1 });
  });
});
