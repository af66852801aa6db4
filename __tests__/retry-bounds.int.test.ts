/**
 * `retry.maxElapsedMs` bounds every retry that takes it: with a budget of 0 ms, a try that failed is
 * never followed by another, whatever `attempts` allows. Faults are injected before the SDK's own
 * retries, on a real DynamoDB Local client; the tests count tries, not milliseconds.
 */
import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  AppendContentionError,
  BackfillFailedError,
  ConcurrencyError,
  ConcurrentModificationError,
  eventsTableDefinition,
  readModelTableDefinition,
} from 'dynafold';
import type { RetryOptions } from 'dynafold/types';
import { createTestTable, testClient } from './support/dynamo';
import { orderSummaries, orderSummaryProjection } from './support/order-projection';
import { orderStream } from './support/orders';

const client = testClient();
let eventsTable: string;
let viewsTable: string;
let sequence = 0;
const freshId = () => ({ orderId: `r-${++sequence}-${Date.now().toString(36)}` });

beforeAll(async () => {
  eventsTable = (await createTestTable(client, eventsTableDefinition, 'retry-events')).name;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'retry-views')).name;
});
afterAll(() => client.destroy());

/**
 * A client whose requests of `command` that mention `marker` fail with `fault()` before they are sent;
 * `tries` counts them.
 */
function faultyClient(command: string, marker: string, fault: () => Error): { readonly client: DynamoDBClient; readonly tries: () => number } {
  const faulty = testClient();
  let tries = 0;
  faulty.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === command && JSON.stringify((args as { input?: unknown }).input).includes(marker)) {
        tries++;
        throw fault();
      }
      return next(args);
    },
    { step: 'initialize', name: 'injectFault' },
  );
  return { client: faulty, tries: () => tries };
}

const cancelled = (code: string) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: [{ Code: code }, { Code: 'None' }] });
const unlimitedButInstant: RetryOptions = { attempts: 50, maxElapsedMs: 0, backoff: { initialMs: 1, maxMs: 1 } };
const threeTries: RetryOptions = { attempts: 3, backoff: { initialMs: 1, maxMs: 1 } };

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

// An append is one conditional PutItem of its commit, one event or several; with an idempotency key it is
// a transaction of the commit and the sentinel: every retry path takes the bound.
const appendShapes = [
  { shape: 'one event (a conditional PutItem)', command: 'PutItemCommand', count: 1, key: {}, lost: conditionFailed, contended: conditionFailed },
  {
    shape: 'two events (a conditional PutItem of their commit)',
    command: 'PutItemCommand',
    count: 2,
    key: {},
    lost: conditionFailed,
    contended: conditionFailed,
  },
  {
    shape: 'two events and an idempotency key (a transaction of the commit and the sentinel)',
    command: 'TransactWriteItemsCommand',
    count: 2,
    key: { idempotencyKey: 'bounded' },
    lost: () => cancelled('ConditionalCheckFailed'),
    contended: () => cancelled('TransactionConflict'),
  },
] as const;
const placed = (count: number) => Array.from({ length: count }, () => ({ type: 'OrderPlaced' as const, data: { customer: 'ada' } }));

test.each(appendShapes)('an append of $shape contended by concurrent writers stops at maxElapsedMs', async ({ command, count, key, contended }) => {
  const id = freshId();
  const { client: faulty, tries } = faultyClient(command, id.orderId, contended);
  try {
    const stream = orderStream(faulty, eventsTable);
    const append = (retry: RetryOptions) => stream.append(id, placed(count), { retry, ...key });
    await expect(append(unlimitedButInstant)).rejects.toMatchObject({ constructor: AppendContentionError, attempts: 1 });
    expect(tries()).toBe(1);
    await expect(append(threeTries)).rejects.toMatchObject({ constructor: AppendContentionError, attempts: 3 });
    expect(tries()).toBe(1 + 3);
  } finally {
    faulty.destroy();
  }
});

test.each(appendShapes)(
  'a command deciding $shape that keeps losing to concurrent appends stops at maxElapsedMs',
  async ({ command, count, key, lost }) => {
    const id = freshId();
    const { client: faulty, tries } = faultyClient(command, id.orderId, lost);
    try {
      const stream = orderStream(faulty, eventsTable);
      const decider = { initial: {}, evolve: (state: object) => state, decide: () => placed(count) };
      await expect(stream.execute(id, decider, { retry: unlimitedButInstant, ...key })).rejects.toBeInstanceOf(ConcurrencyError);
      expect(tries()).toBe(1);
      await expect(stream.execute(id, decider, { retry: threeTries, ...key })).rejects.toBeInstanceOf(ConcurrencyError);
      expect(tries()).toBe(1 + 3);
    } finally {
      faulty.destroy();
    }
  },
);

test('a projection row whose every write is lost stops at maxElapsedMs', async () => {
  const id = freshId();
  const events = (await orderStream(client, eventsTable).append(id, [{ type: 'OrderPlaced', data: { customer: 'ada' } }])).events;
  const { client: faulty, tries } = faultyClient('PutItemCommand', id.orderId, conditionFailed);
  try {
    const stream = orderStream(faulty, eventsTable);
    const apply = async (retry: RetryOptions) => orderSummaryProjection(stream, orderSummaries(faulty, viewsTable), { retry }).applyBatch(events);
    const bounded = await apply(unlimitedButInstant);
    expect(bounded.outcomes[0]).toMatchObject({ status: 'failed', error: { constructor: ConcurrentModificationError, attempts: 1 } });
    expect(tries()).toBe(1);
    const counted = await apply(threeTries);
    expect(counted.outcomes[0]).toMatchObject({ status: 'failed', error: { constructor: ConcurrentModificationError, attempts: 3 } });
    expect(tries()).toBe(1 + 3);
  } finally {
    faulty.destroy();
  }
});

test('a backfill instance failing transiently stops at maxElapsedMs', async () => {
  // An events table of its own: the backfill scans it whole.
  const table = (await createTestTable(client, eventsTableDefinition, 'retry-backfill')).name;
  const id = freshId();
  await orderStream(client, table).append(id, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  const throttled = () => new ProvisionedThroughputExceededException({ message: 'Rate of requests exceeds the allowed throughput', $metadata: {} });
  const { client: faulty, tries } = faultyClient('PutItemCommand', id.orderId, throttled);
  try {
    const projection = orderSummaryProjection(orderStream(faulty, table), orderSummaries(faulty, viewsTable, `Backfilled${sequence}`));
    await expect(projection.backfill({ run: 'bounded', retry: unlimitedButInstant })).rejects.toBeInstanceOf(BackfillFailedError);
    expect(tries()).toBe(1);
    await expect(projection.backfill({ run: 'counted', retry: threeTries })).rejects.toBeInstanceOf(BackfillFailedError);
    expect(tries()).toBe(1 + 3);
  } finally {
    faulty.destroy();
  }
});
