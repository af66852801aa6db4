/**
 * A fold whose outbox messages take more than one transaction: it claims the row with a small write
 * before the first, other writers watch the claimed row instead of racing it, and a claim left by a
 * writer that stopped is taken over. Faults are injected by middleware on real clients.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import fc from 'fast-check';
import { Projection, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { outboxTableDefinition } from 'dynafold/outbox';
import { deliver, deliveries, propertySettings, propertyTimeout } from '../support/delivery';
import { createTestTable, testClient } from '../support/dynamo';
import { outboxMessages } from '../support/ledger-case';
import { evolveSummary, foldSummary, initialSummary, orderSummaries } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';
import { seededRandom } from '../support/random';
import { insertsOnly, readStreamRecords } from '../support/stream-records';

const client = testClient();
const EVENTS = 150; // 99 messages fit a transaction with the row: two transactions
let eventsTable: string;
let viewsTable: string;
let outboxTable: string;
let truth: OrderEvent[];
let records: _Record[];

afterAll(() => client.destroy());

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'long-events');
  eventsTable = events.name;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'long-views')).name;
  outboxTable = (await createTestTable(client, outboxTableDefinition, 'long-outbox')).name;
  const stream = orderStream(client, eventsTable);
  await stream.append({ orderId: 'long' }, [{ type: 'OrderPlaced', data: { customer: 'c' } }], { expectedVersion: 0 });
  // One event per append: a record per event, so deliveries cut the long fold anywhere and lanes meet gaps
  // (which make them claim the row), and a batch of versions up to 5, or from 101, is whole commits.
  for (let version = 2; version <= EVENTS; version++) {
    await stream.append({ orderId: 'long' }, [{ type: 'ItemAdded', data: { sku: `s-${version}`, price: 1 } }], { expectedVersion: version - 1 });
  }
  truth = await stream.read({ orderId: 'long' });
  records = insertsOnly(await readStreamRecords(events.streamArn as string));
});

function projectionOn(lane: DynamoDBClient, model: string) {
  return new Projection({
    name: model,
    stream: orderStream(lane, eventsTable),
    readModel: orderSummaries(lane, viewsTable, model),
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => evolveSummary(state, event),
    checkpoint: 'version',
    outbox: { table: outboxTable, message: (event) => ({ version: event.version }) },
  });
}

/** The commands `lane` sends, in order; `before` runs ahead of each, and may throw in its place. */
function recordCommands(lane: DynamoDBClient, before: (command: string) => Promise<void> = async () => undefined): string[] {
  const sent: string[] = [];
  lane.middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context.commandName ?? '').replace(/Command$/, '');
      sent.push(command);
      await before(command);
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return sent;
}

async function messagesOf(model: string): Promise<number[]> {
  const messages = await outboxMessages(client, outboxTable);
  return messages.filter((message) => message.projection === model).map((message) => (message.message as { version: number }).version);
}

const versions = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The model's row is the fold of every event, left unclaimed, and the outbox holds each event's message once, in order. */
async function expectFoldedOnce(name: string): Promise<void> {
  const model = orderSummaries(client, viewsTable, name);
  const row = await model.get({ orderId: 'long' }, { consistent: true });
  expect({ ...row, createdAt: undefined, updatedAt: undefined }).toEqual({
    ...foldSummary('long', truth),
    createdAt: undefined,
    updatedAt: undefined,
  });
  expect((await model.getItem({ orderId: 'long' }))?.['_more']).toBeUndefined();
  expect(await messagesOf(name)).toEqual(versions(1, EVENTS));
}

test('a fold past one transaction that fills a gap claims the row with a small write first, and its last write clears the claim', async () => {
  const lane = testClient();
  try {
    const projection = projectionOn(lane, 'LongExisting');
    await projection.applyBatch(truth.slice(0, 5));
    const sent = recordCommands(lane);

    await projection.applyBatch(truth.slice(100)); // 6 to 100 are read from the store: another lane holds them

    expect(sent.filter((command) => command !== 'GetItem')).toEqual(['Query', 'UpdateItem', 'TransactWriteItems', 'TransactWriteItems']);
    const item = await orderSummaries(client, viewsTable, 'LongExisting').getItem({ orderId: 'long' });
    expect(item?.['_more']).toBeUndefined();
    expect(await messagesOf('LongExisting')).toEqual(versions(1, EVENTS));
  } finally {
    lane.destroy();
  }
});

test("a fold past one transaction of the call's own events, in order, does without a claim", async () => {
  const lane = testClient();
  try {
    const projection = projectionOn(lane, 'LongInOrder');
    await projection.applyBatch(truth.slice(0, 5));
    const sent = recordCommands(lane);

    await projection.applyBatch(truth.slice(5));

    expect(sent.filter((command) => command !== 'GetItem')).toEqual(['TransactWriteItems', 'TransactWriteItems']);
    expect((await orderSummaries(client, viewsTable, 'LongInOrder').getItem({ orderId: 'long' }))?.['_more']).toBeUndefined();
    expect(await messagesOf('LongInOrder')).toEqual(versions(1, EVENTS));
  } finally {
    lane.destroy();
  }
});

test('a row that does not exist yet is claimed with a stub, which reads do not show', async () => {
  const lane = testClient();
  const model = orderSummaries(client, viewsTable, 'LongNew');
  const seen: Array<Record<string, unknown> | undefined> = [];
  try {
    const sent = recordCommands(lane, async (command) => {
      if (command === 'TransactWriteItems' && seen.length === 0)
        seen.push(await model.get({ orderId: 'long' }, { consistent: true }), await model.getItem({ orderId: 'long' }));
    });

    await projectionOn(lane, 'LongNew').applyBatch(truth.slice(100));

    expect(sent.filter((command) => command !== 'GetItem')).toEqual(['Query', 'PutItem', 'TransactWriteItems', 'TransactWriteItems']);
    expect(seen[0]).toBeUndefined(); // the stub is bookkeeping, not a row
    expect(seen[1]).toMatchObject({ _stub: true, _more: true });
    await expectFoldedOnce('LongNew');
  } finally {
    lane.destroy();
  }
});

test('a claim left by a writer that stopped after it is watched, then taken over: every event applied and sent once', async () => {
  const stopped = testClient();
  const other = testClient();
  try {
    await projectionOn(client, 'LongStopped').applyBatch(truth.slice(0, 5));
    // The first lane claims the row, then its transaction fails and it stops, leaving the claim.
    recordCommands(stopped, async (command) => {
      if (command === 'TransactWriteItems') throw Object.assign(new Error('the lane stopped'), { name: 'ValidationException' });
    });
    const first = await projectionOn(stopped, 'LongStopped').applyBatch(truth.slice(100));
    expect(first.outcomes).toEqual([expect.objectContaining({ status: 'failed' })]);
    const model = orderSummaries(client, viewsTable, 'LongStopped');
    expect(await model.getItem({ orderId: 'long' })).toMatchObject({ _more: true, version: 5 });

    const sent = recordCommands(other);
    const second = await projectionOn(other, 'LongStopped').applyBatch(truth.slice(100));

    expect(second.outcomes).toEqual([expect.objectContaining({ status: 'applied' })]);
    // It read the claimed row more than once before writing over it, and did not claim it again.
    expect(sent.indexOf('TransactWriteItems')).toBeGreaterThan(1);
    expect(sent.slice(0, sent.indexOf('TransactWriteItems')).filter((command) => command === 'GetItem').length).toBeGreaterThan(1);
    expect(sent).not.toContain('UpdateItem');
    expect((await model.getItem({ orderId: 'long' }))?.['_more']).toBeUndefined();
    expect((await model.get({ orderId: 'long' }, { consistent: true }))?.version).toBe(EVENTS);
    expect(await messagesOf('LongStopped')).toEqual(versions(1, EVENTS));
  } finally {
    stopped.destroy();
    other.destroy();
  }
});

const CASES = 4;
let cases = 0;
// Claims made across the cases (the only UpdateItems and PutItems an outbox projection sends): the property must reach them.
let claims = 0;

test(
  'lanes racing for a row whose folds take several transactions, with lost write answers: the row is its fold, every message written once and in order, no claim left',
  async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, fc.constantFrom(0, 0.03, 0.08), async (delivery, lostAnswers) => {
        const lane = testClient();
        const name = `LongLanes${cases++}`;
        try {
          // A write that went through whose answer is lost: the call fails, and a claim it made stays behind.
          const random = seededRandom(delivery.seed);
          lane.middlewareStack.add(
            (next, context) => async (args) => {
              if (context.commandName === 'UpdateItemCommand' || context.commandName === 'PutItemCommand') claims++;
              const result = await next(args);
              const write = ['TransactWriteItemsCommand', 'UpdateItemCommand', 'PutItemCommand'].includes(context.commandName ?? '');
              if (write && random() < lostAnswers) throw Object.assign(new Error('answer lost (injected)'), { name: 'TimeoutError' });
              return result;
            },
            { step: 'initialize', name: 'loseAnswers' },
          );
          const projection = projectionOn(lane, name);
          await deliver(records, { ...delivery, maxBatch: delivery.maxBatch * 10 }, async (batch) => {
            return (await processBatch(batch, { projections: { [name]: projection }, source: 'lambda' })).response;
          });

          await expectFoldedOnce(name);
        } finally {
          lane.destroy();
        }
      }),
      propertySettings(CASES),
    );
    expect(claims).toBeGreaterThan(0);
  },
  propertyTimeout(CASES),
);
