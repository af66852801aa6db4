import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConfigurationError, EventStream, Projection, ReadModel, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { OutboxRelay, outboxTableDefinition, type OutboxMessage } from 'dynafold/outbox';
import { createTestTable, testClient } from '../support/dynamo';
import { accountModel, accountsProjection, ledgerStream, type LedgerMessage, type NewLedgerEvent } from '../support/ledger';
import { outboxMessages } from '../support/ledger-case';
import { countRequests } from '../support/requests';

const client = testClient();
const requests = countRequests(client);
afterAll(() => client.destroy());

let eventsTable: string;
let viewsTable: string;

beforeAll(async () => {
  eventsTable = (await createTestTable(client, eventsTableDefinition, 'edges-events')).name;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [accountModel(client, name, 'Any')]), 'edges-views')).name;
});

async function newOutbox(): Promise<string> {
  return (await createTestTable(client, outboxTableDefinition, 'edges-outbox')).name;
}

test('a removed row behind a run of 99 skipped events is recreated by a later event: the outbox splits by what is applied, not by what is read', async () => {
  const outbox = await newOutbox();
  const stream = ledgerStream(client, eventsTable, 'A');
  const accounts = accountsProjection(stream, accountModel(client, viewsTable, 'LongRun'), { revision: false, outbox });
  const id = { id: 'long-run' };
  const owner = { owner: 'a' };
  const events: NewLedgerEvent[] = [
    { type: 'Opened', data: owner },
    { type: 'Closed', data: owner },
    ...Array.from({ length: 99 }, () => ({ type: 'Deposited' as const, data: { ...owner, amount: 1 } })),
    { type: 'Reopened', data: owner },
    { type: 'Deposited', data: { ...owner, amount: 5 } },
  ];
  await stream.append(id, events.slice(0, 90) as never);
  const { events: tail } = await stream.append(id, events.slice(90) as never);
  const [v1, v2] = await stream.read(id, { toVersion: 2 });
  await accounts.applyBatch([v1, v2] as never);

  const result = await accounts.applyBatch([tail[tail.length - 1]] as never); // v103 alone
  expect(result.outcomes[0]).toMatchObject({ status: 'applied', version: 103 });
  const outcome = result.outcomes[0] as { applied: ReadonlyArray<{ version: number }>; skipped: ReadonlyArray<unknown> };
  expect(outcome.applied.map((event) => event.version)).toEqual([102, 103]);
  expect(outcome.skipped).toHaveLength(99);
  expect(await accountModel(client, viewsTable, 'LongRun').get(id, { consistent: true })).toMatchObject({ balance: 5, reopened: 1, version: 103 });
  expect((await outboxMessages(client, outbox)).map((message) => (message.message as LedgerMessage).event)).toEqual([
    'A#long-run@1',
    'A#long-run@2',
    'A#long-run@102',
    'A#long-run@103',
  ]);
});

test('the message of each event carries the row as it was right after that event', async () => {
  const outbox = await newOutbox();
  const stream = ledgerStream(client, eventsTable, 'A');
  const accounts = accountsProjection(stream, accountModel(client, viewsTable, 'PerEvent'), { revision: false, outbox });
  const { events } = await stream.append(
    { id: 'per-event' },
    [1, 2, 3].map((amount) => ({ type: 'Deposited' as const, data: { owner: 'a', amount } })),
  );
  await accounts.applyBatch(events as never);
  expect((await outboxMessages(client, outbox)).map((message) => (message.message as LedgerMessage).balance)).toEqual([1, 3, 6]);
});

describe('large messages', () => {
  const blobEvents = { Blob: z.object({ text: z.string() }) };
  const sizeSchema = z.object({ id: z.string(), count: z.number(), bytes: z.number(), version: z.number() });

  function blobProjection(name: string, outbox: string) {
    const stream = new EventStream({ client, table: eventsTable, name: `Blob${name}`, streamId: ['id'], events: blobEvents });
    const model = new ReadModel({
      client,
      table: viewsTable,
      name,
      schema: sizeSchema,
      key: { pk: { field: 'pk', composite: ['id'] }, sk: { field: 'sk', composite: [] } },
    });
    const projection = new Projection({
      stream,
      readModel: model,
      key: (id) => ({ id: id.id }),
      initial: (id) => ({ id: id.id, count: 0, bytes: 0, version: 0 }),
      evolve: (state, event) => ({ ...state, count: state.count + 1, bytes: state.bytes + event.data.text.length }),
      checkpoint: 'version',
      outbox: { table: outbox, message: (event) => event.data },
    });
    return { stream, model, projection };
  }

  test('a 500 KB compressible message is stored compressed and published whole', async () => {
    const outbox = await newOutbox();
    const { stream, model, projection } = blobProjection('BigOne', outbox);
    const text = 'abcdefghij'.repeat(50_000);
    const { events } = await stream.append({ id: 'big' }, [{ type: 'Blob', data: { text } }]);
    const result = await projection.applyBatch(events);
    expect(result.outcomes[0]).toMatchObject({ status: 'applied' });
    expect(await model.get({ id: 'big' }, { consistent: true })).toMatchObject({ count: 1, bytes: 500_000 });
    const published: OutboxMessage[] = [];
    await new OutboxRelay({ client, table: outbox, publish: async (message) => void published.push(message) }).drainAll();
    expect(published.map((message) => (message.message as { text: string }).text)).toEqual([text]);
  });

  test('70 messages of 100 KB each are split over transactions by size, in order', async () => {
    const outbox = await newOutbox();
    const { stream, model, projection } = blobProjection('ManyBig', outbox);
    const texts = Array.from({ length: 70 }, () => randomBytes(75_000).toString('base64')); // 100 KB, barely compressible
    for (let start = 0; start < texts.length; start += 20) {
      await stream.append(
        { id: 'many' },
        texts.slice(start, start + 20).map((text) => ({ type: 'Blob' as const, data: { text } })),
      );
    }
    requests.reset();
    const events = await stream.read({ id: 'many' });
    const result = await projection.applyBatch(events);
    expect(result.outcomes[0]).toMatchObject({ status: 'applied', version: 70 });
    expect((result.outcomes[0] as { applied: ReadonlyArray<unknown> }).applied).toHaveLength(70);
    expect(requests.count('TransactWriteItemsCommand')).toBeGreaterThanOrEqual(2);
    expect(await model.get({ id: 'many' }, { consistent: true })).toMatchObject({ count: 70, version: 70 });
    const published: OutboxMessage[] = [];
    await new OutboxRelay({ client, table: outbox, publish: async (message) => void published.push(message) }).drainAll();
    expect(published.map((message) => (message.message as { text: string }).text)).toEqual(texts);
  });
});

test('rows whose key values hold "#" get outbox partitions of their own: no message overwrites another', async () => {
  const outbox = await newOutbox();
  const pairEvents = { Tagged: z.object({ p: z.string(), s: z.string() }) };
  const stream = new EventStream({ client, table: eventsTable, name: 'Pair', streamId: ['id'], events: pairEvents });
  const model = new ReadModel({
    client,
    table: viewsTable,
    name: 'M',
    schema: z.object({ id: z.string(), p: z.string(), s: z.string(), version: z.number() }),
    key: { pk: { field: 'pk', composite: ['p'] }, sk: { field: 'sk', composite: ['s'] } },
  });
  const projection = new Projection({
    stream,
    readModel: model,
    key: (id, event) => ({ id: id.id, p: event.data.p, s: event.data.s }),
    initial: (id, event) => ({ id: id.id, p: event.data.p, s: event.data.s, version: 0 }),
    evolve: (state) => state,
    checkpoint: 'version',
    outbox: { table: outbox },
  });
  const { events } = await stream.append({ id: 'pair' }, [
    { type: 'Tagged', data: { p: 'a#M', s: 'b' } },
    { type: 'Tagged', data: { p: 'a', s: 'M#b' } },
  ]);
  await projection.applyBatch(events);
  const messages = await outboxMessages(client, outbox);
  expect(messages.map((message) => message.id).sort()).toEqual(['Pair#pair#1', 'Pair#pair#2']);
  expect(new Set(messages.map((message) => message.partition)).size).toBe(2);
});

test("an outbox on the read model's own table is refused at construction", () => {
  const stream = ledgerStream(client, eventsTable, 'A');
  expect(() => accountsProjection(stream, accountModel(client, viewsTable, 'SameTable'), { revision: false, outbox: viewsTable })).toThrow(
    ConfigurationError,
  );
  expect(() => accountsProjection(stream, accountModel(client, viewsTable, 'SameTable'), { revision: false, outbox: viewsTable })).toThrow(
    /can't share the read model's table/,
  );
});
