/**
 * Row writes whose answer is lost after DynamoDB applied them: the SDK sends the write again, which meets
 * the row it wrote (or a later writer's). Each event must be in exactly one call's `applied`, and a
 * failure counted once per delivery, whatever answer is lost.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { eventsTableDefinition, readModelTableDefinition, type RowOutcome } from 'dynafold';
import { quickRetries } from '../../chaos/faults';
import { createTestTable, localConfig, testClient } from '../support/dynamo';
import { accountModel, accountsProjection, ledgerStream, type LedgerEvent } from '../support/ledger';
import { loseAnswers } from '../support/lost-answers';
import { countRequests } from '../support/requests';
import { orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';
import { outboxTableDefinition } from 'dynafold/outbox';

const client = testClient();
const answers = loseAnswers(client);
let eventsTable: string;
let viewsTable: string;
let models = 0;

beforeAll(async () => {
  eventsTable = (await createTestTable(client, eventsTableDefinition, 'lost-rows-events')).name;
  viewsTable = (
    await createTestTable(
      client,
      (name) => readModelTableDefinition(name, [orderSummaries(client, name), accountModel(client, name, 'Any')]),
      'lost-rows-views',
    )
  ).name;
});
// A client whose SDK tries a request twice: after a lost answer and a throttled retry, it gives up.
const brief = new DynamoDBClient({ ...localConfig(), retryStrategy: quickRetries(2, 5) });
const briefAnswers = loseAnswers(brief);
afterEach(() => {
  answers.stop();
  briefAnswers.stop();
});
afterAll(() => {
  client.destroy();
  brief.destroy();
});

/** Every event of every outcome's `applied`, as `streamId@version`: the README's side-effect loop. */
function sideEffects(outcomes: ReadonlyArray<RowOutcome>): string[] {
  return outcomes.flatMap((outcome) => outcome.applied.map((event) => `${event.streamId}@${event.version}`));
}

const toRows = (input: Readonly<Record<string, unknown>>) => input['TableName'] === viewsTable;

test("two lost answers in a batch of 15 events: every event is in its call's applied, once", async () => {
  const stream = orderStream(client, eventsTable);
  const projection = orderSummaryProjection(stream, orderSummaries(client, viewsTable, `Lost${++models}`));
  const batch: OrderEvent[] = [];
  for (const n of [1, 2, 3, 4, 5]) {
    const id = { orderId: `batch-${models}-${n}` };
    const written = await stream.append(id, [
      { type: 'OrderPlaced', data: { customer: `c${n}` } },
      { type: 'ItemAdded', data: { sku: 'pen', price: n } },
      { type: 'ItemAdded', data: { sku: 'ink', price: 10 } },
    ]);
    batch.push(...written.events);
  }
  answers.loseNext({ count: 2, operation: 'PutItem', where: toRows });
  const { outcomes } = await projection.applyBatch(batch);
  expect(answers.lost).toHaveLength(2);
  expect(outcomes.every((outcome) => outcome.status === 'applied')).toBe(true);
  expect(sideEffects(outcomes).sort()).toEqual(batch.map((event) => `${event.streamId}@${event.version}`).sort());
  // Delivered again, nothing is applied twice.
  expect(sideEffects((await projection.applyBatch(batch)).outcomes)).toEqual([]);
  for (const n of [1, 2, 3, 4, 5]) {
    expect(await projection.readModel.get({ orderId: `batch-${models}-${n}` }, { consistent: true })).toMatchObject({ items: 2, total: n + 10 });
  }
});

test("a lost answer whose retry meets a later writer's row: each call reports its own events", async () => {
  const stream = orderStream(client, eventsTable);
  const projection = orderSummaryProjection(stream, orderSummaries(client, viewsTable, `Lost${++models}`));
  const id = { orderId: `later-${models}` };
  const first = (await stream.append(id, [{ type: 'OrderPlaced', data: { customer: 'ada' } }])).events;
  const second = (await stream.append(id, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }])).events;
  const later: RowOutcome[] = [];
  // The first call's write lands; before the SDK sends it again, another call writes the next event to the row.
  answers.loseNext({ operation: 'PutItem', where: toRows, meanwhile: async () => later.push(...(await projection.applyBatch(second)).outcomes) });
  const { outcomes } = await projection.applyBatch(first);
  expect(later).toHaveLength(1);
  expect(sideEffects(outcomes)).toEqual([`${id.orderId}@1`]);
  expect(sideEffects(later)).toEqual([`${id.orderId}@2`]);
  expect(await projection.readModel.get(id, { consistent: true })).toMatchObject({ customer: 'ada', items: 1, total: 2 });
});

test('a failure counted towards parking whose answer is lost is counted once', async () => {
  const stream = ledgerStream(client, eventsTable, 'A');
  const accounts = accountsProjection(stream, accountModel(client, viewsTable, `LostCount${++models}`), {
    revision: true,
    poison: { park: { afterAttempts: 3 } },
    isPoison: (event: LedgerEvent) => event.type === 'Deposited' && event.data.amount === 13,
  });
  const written = (await stream.append({ id: `count-${models}` }, [{ type: 'Deposited', data: { owner: 'x', amount: 13 } }])).events;
  answers.loseNext({ operation: 'UpdateItem', where: toRows });
  expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'failed' });
  expect(answers.lost).toHaveLength(1);
  const row = await accounts.readModel.getItem({ id: `count-${models}` });
  expect(row?.['_failures']).toMatchObject({ attempts: 1 });
  // Two more deliveries park it: three attempts, three deliveries.
  expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'failed' });
  expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'parked', parked: { attempts: 3 } });
});

test("a parked row's note of how far its events reached, whose answer is lost, is its own: the delivery reads the row once", async () => {
  // A client of its own, so the requests counted are this test's.
  const own = testClient();
  const ownAnswers = loseAnswers(own);
  const requests = countRequests(own);
  try {
    const stream = ledgerStream(own, eventsTable, 'A');
    const accounts = accountsProjection(stream, accountModel(own, viewsTable, `LostNote${++models}`), {
      revision: true,
      poison: { park: { afterAttempts: 1 } },
      isPoison: (event: LedgerEvent) => event.type === 'Deposited' && event.data.amount === 13,
    });
    const id = { id: `note-${models}` };
    const poisoned = (await stream.append(id, [{ type: 'Deposited', data: { owner: 'x', amount: 13 } }])).events;
    expect((await accounts.applyBatch(poisoned)).outcomes[0]).toMatchObject({ status: 'parked' });
    const later = (await stream.append(id, [{ type: 'Deposited', data: { owner: 'x', amount: 5 } }])).events;
    ownAnswers.loseNext({ operation: 'UpdateItem', where: toRows });
    requests.reset();
    const { outcomes } = await accounts.applyBatch(later);
    expect(ownAnswers.lost).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ status: 'parked', parked: { through: { [`${stream.name}#${id.id}`]: 2 } } });
    // The note's retry met its own update: no second read of the row, as after a lost race.
    expect(requests.count('GetItemCommand')).toBe(1);
    expect((await accounts.readModel.getItem(id))?.['_parked']).toMatchObject({ through: { [`${stream.name}#${id.id}`]: 2 } });
  } finally {
    own.destroy();
  }
});

test('an inline append whose transaction answer is lost writes its events and rows once', async () => {
  const stream = orderStream(client, eventsTable);
  const projection = orderSummaryProjection(stream, orderSummaries(client, viewsTable, `Inline${++models}`));
  const id = { orderId: `inline-${models}` };
  answers.loseNext({ operation: 'TransactWriteItems' });
  const result = await stream.append(
    id,
    [
      { type: 'OrderPlaced', data: { customer: 'ada' } },
      { type: 'ItemAdded', data: { sku: 'pen', price: 2 } },
    ],
    { inline: [projection] },
  );
  expect(answers.lost).toHaveLength(1);
  expect(result.version).toBe(2);
  expect(result.inline?.applied.map((entry) => entry.events.map((event) => event.version))).toEqual([[1, 2]]);
  expect((await stream.read(id)).map((event) => event.version)).toEqual([1, 2]);
  expect(await projection.readModel.get(id, { consistent: true })).toMatchObject({ items: 1, total: 2 });
  // The projector, delivered the same events, finds them applied.
  expect(sideEffects((await projection.applyBatch(result.events)).outcomes)).toEqual([]);
});

describe('a row write whose answer is lost and whose retry the SDK gives up on', () => {
  test.each([
    ['a Put', false],
    ['a transaction with outbox messages', true],
  ])('as %s, it reads the row, finds its own write and reports its events applied', async (_, outbox) => {
    const stream = ledgerStream(brief, eventsTable, 'A');
    const outboxTable = outbox ? (await createTestTable(client, outboxTableDefinition, 'lost-rows-outbox')).name : undefined;
    const accounts = accountsProjection(stream, accountModel(brief, viewsTable, `GiveUp${++models}`), {
      revision: true,
      ...(outboxTable === undefined ? {} : { outbox: outboxTable }),
    });
    const written = (
      await stream.append({ id: `give-up-${models}` }, [
        { type: 'Opened', data: { owner: 'x' } },
        { type: 'Deposited', data: { owner: 'x', amount: 5 } },
      ])
    ).events;
    briefAnswers.loseNext({ operation: outbox ? 'TransactWriteItems' : 'PutItem', where: outbox ? undefined : toRows, throttleRetries: 1 });
    const { outcomes } = await accounts.applyBatch(written);
    expect(briefAnswers.lost).toHaveLength(1);
    expect(outcomes).toMatchObject([{ status: 'applied' }]);
    expect(sideEffects(outcomes)).toEqual([`give-up-${models}@1`, `give-up-${models}@2`]);
    expect(sideEffects((await accounts.applyBatch(written)).outcomes)).toEqual([]);
  });

  test('when its first reads fail too, it reads again until one answers', async () => {
    const stream = ledgerStream(brief, eventsTable, 'A');
    const accounts = accountsProjection(stream, accountModel(brief, viewsTable, `GiveUp${++models}`), { revision: true });
    const written = (await stream.append({ id: `give-up-${models}` }, [{ type: 'Opened', data: { owner: 'x' } }])).events;
    // The SDK tries each read twice: both tries of the first read and one of the second are throttled.
    briefAnswers.loseNext({ operation: 'PutItem', where: toRows, throttleRetries: 1, failingReads: 3 });
    const { outcomes } = await accounts.applyBatch(written);
    expect(briefAnswers.lost).toHaveLength(1);
    expect(outcomes).toMatchObject([{ status: 'applied' }]);
    expect(sideEffects(outcomes)).toEqual([`give-up-${models}@1`]);
  });
});
