/**
 * Appends whose answer is lost after DynamoDB applied them: the SDK sends the request again, which meets
 * the append's own commit. Every call must have its effect exactly once, whatever answer is lost.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { eventsTableDefinition } from 'dynafold';
import { quickRetries } from '../../chaos/faults';
import { createTestTable, localConfig, testClient } from '../support/dynamo';
import { loseAnswers } from '../support/lost-answers';
import { emptyOrder, evolveOrder, orderStream, placeThenAddItem, range } from '../support/orders';

const client = testClient();
const answers = loseAnswers(client);
let table: string;
let Orders: ReturnType<typeof orderStream>;

beforeAll(async () => {
  ({ name: table } = await createTestTable(client, eventsTableDefinition, 'lost-answers'));
  Orders = orderStream(client, table);
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

let sequence = 0;
const freshId = () => ({ orderId: `o-${++sequence}-${Date.now().toString(36)}` });
const items = (count: number) => range(1, count).map((n) => ({ type: 'ItemAdded' as const, data: { sku: `sku-${n}`, price: n } }));

describe('an append whose answer is lost after it was applied', () => {
  test.each([1, 2, 5])('a head append of %i events resolves once and the stream holds them once', async (count) => {
    const id = freshId();
    await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
    const lostBefore = answers.lost.length;
    answers.loseNext({ operation: 'PutItem' });
    const result = await Orders.append(id, items(count));
    expect(answers.lost.length).toBe(lostBefore + 1);
    expect(result.version).toBe(1 + count);
    const stored = await Orders.read(id);
    expect(stored.map((event) => event.version)).toEqual(range(1, 1 + count));
    expect(stored.slice(1)).toEqual(result.events);
  });

  test('an append at an expectedVersion it proved by a read resolves instead of a ConcurrencyError', async () => {
    const id = freshId();
    await orderStream(client, table).append(id, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
    // A stream instance that never saw the head: the expected version is proven by a read first.
    const fresh = orderStream(client, table);
    answers.loseNext({ operation: 'PutItem' });
    const result = await fresh.append(id, items(1), { expectedVersion: 1 });
    expect(result.version).toBe(2);
    expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2]);
  });

  test('an append at its own last version resolves instead of a ConcurrencyError, and the next goes on from it', async () => {
    const id = freshId();
    const first = await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'ada' } }], { expectedVersion: 0 });
    answers.loseNext({ operation: 'PutItem' });
    const second = await Orders.append(id, items(2), { expectedVersion: first.version });
    expect(second.version).toBe(3);
    const third = await Orders.append(id, items(1), { expectedVersion: second.version });
    expect(third.version).toBe(4);
    expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2, 3, 4]);
  });

  test('execute decides and appends once', async () => {
    const id = freshId();
    await Orders.execute(id, placeThenAddItem(id.orderId));
    answers.loseNext({ operation: 'PutItem' });
    const result = await Orders.execute(id, placeThenAddItem(id.orderId));
    expect(result.version).toBe(2);
    const { state, version } = await Orders.load(id, { initial: emptyOrder, evolve: evolveOrder });
    expect(version).toBe(2);
    expect(state.items).toBe(1);
  });

  test('an append cut into several commits (a transaction) is written once', async () => {
    const PerEvent = orderStream(client, table, { itemPerEvent: true });
    const id = freshId();
    answers.loseNext({ operation: 'TransactWriteItems' });
    const result = await PerEvent.append(id, items(3));
    expect(result.version).toBe(3);
    expect((await PerEvent.read(id)).map((event) => event.version)).toEqual([1, 2, 3]);
  });

  test('an idempotent append is written once and answers its own result', async () => {
    const id = freshId();
    answers.loseNext({ operation: 'TransactWriteItems' });
    const result = await Orders.append(id, items(2), { idempotencyKey: 'k-1' });
    expect(result.version).toBe(2);
    const again = await Orders.append(id, items(2), { idempotencyKey: 'k-1' });
    expect(again.version).toBe(2);
    expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2]);
  });

  test('a rival that took the version is still a conflict: an append at a stale version is refused', async () => {
    const id = freshId();
    await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
    await orderStream(client, table).append(id, items(1), { expectedVersion: 1 });
    // Its Put's condition fails on the rival's commit, which does not carry its id.
    await expect(orderStream(client, table, { rememberedVersions: 0 }).append(id, items(1), { expectedVersion: 1 })).rejects.toMatchObject({
      code: 'store.concurrency',
      actualVersion: 2,
    });
    expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2]);
  });
});

describe('an append whose answer is lost and whose retry the SDK gives up on', () => {
  test.each([
    ['one PutItem', false],
    ['a transaction of several commits', true],
  ])('the append as %s reads its commit and resolves once', async (_, itemPerEvent) => {
    const Brief = orderStream(brief, table, { itemPerEvent });
    const id = freshId();
    briefAnswers.loseNext({ throttleRetries: 1 });
    const result = await Brief.append(id, items(3));
    expect(briefAnswers.lost).toHaveLength(1);
    expect(result.version).toBe(3);
    expect((await Orders.read(id)).map((event) => event.version)).toEqual([1, 2, 3]);
  });

  test('execute decides and appends once', async () => {
    const Brief = orderStream(brief, table);
    const id = freshId();
    await Brief.execute(id, placeThenAddItem(id.orderId));
    briefAnswers.loseNext({ operation: 'PutItem', throttleRetries: 1 });
    expect((await Brief.execute(id, placeThenAddItem(id.orderId))).version).toBe(2);
    expect((await Orders.load(id, { initial: emptyOrder, evolve: evolveOrder })).state.items).toBe(1);
  });

  test('a request that was never applied still fails, and writes nothing', async () => {
    const Brief = orderStream(brief, table);
    const id = freshId();
    // Throttled twice before it is sent: the SDK gives up, the read finds no commit, the error stands.
    let throttles = 2;
    brief.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutItemCommand' && throttles-- > 0) {
          throw Object.assign(new Error('Throttled (injected)'), {
            name: 'ThrottlingException',
            $fault: 'client',
            $metadata: { httpStatusCode: 400 },
          });
        }
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low', name: 'throttle-twice' },
    );
    await expect(Brief.append(id, items(1))).rejects.toMatchObject({ code: 'dynamo.request' });
    expect(await Orders.read(id)).toEqual([]);
  });
});
