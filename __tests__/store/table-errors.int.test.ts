/**
 * A misspelled or missing table, stream or permission is the deployment's fault, and every part of the API
 * says so the same way: a typed error naming the table (and, for access, the operation) and what to do,
 * instead of the SDK's "Cannot do operations on a non-existent table".
 */
import { type DynamoDBClient, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import {
  AccessDeniedError,
  Projection,
  StreamNotFoundError,
  TableNotFoundError,
  eventsTableDefinition,
  lambdaHandler,
  readModelTableDefinition,
} from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { ChangeFeedConsumer, DynamoCheckpointStore, MemoryCheckpointStore } from 'dynafold/feed';
import { lambdaStreamEventOf } from '../fixtures/dynamodb-stream-event';
import { createTestTable, testClient, uniqueName } from '../support/dynamo';
import { localFeed, streamsClient } from '../feed/support';
import { evolveSummary, initialSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream } from '../support/orders';

const client = testClient();
const streams = streamsClient();
let eventsTable: string;
let streamArn: string;
let viewsTable: string;

afterAll(() => {
  client.destroy();
  streams.destroy();
});

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'missing-events');
  eventsTable = events.name;
  streamArn = events.streamArn as string;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'missing-views')).name;
  const stream = orderStream(client, eventsTable);
  for (const orderId of ['o-1', 'o-2']) {
    await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
    await stream.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }]);
  }
});

/** Captures what reaches `console.warn` and `console.error` while `run` runs, as parsed JSON lines. */
async function consoleLines<T>(run: () => Promise<T>): Promise<{ result: T; lines: Array<Record<string, unknown>> }> {
  const lines: Array<Record<string, unknown>> = [];
  const capture = (line: unknown) => void lines.push(JSON.parse(String(line)) as Record<string, unknown>);
  const warn = jest.spyOn(console, 'warn').mockImplementation(capture);
  const error = jest.spyOn(console, 'error').mockImplementation(capture);
  try {
    return { result: await run(), lines };
  } finally {
    warn.mockRestore();
    error.mockRestore();
  }
}

/** A client on DynamoDB Local whose `commandName` requests DynamoDB refuses, as AWS does for a role without the permission. */
function refusingClient(commandName: string): DynamoDBClient {
  const refusing = testClient();
  refusing.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== commandName) return next(args);
      throw new DynamoDBServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
        message: 'User: arn:aws:iam::000000000000:user/app is not authorized to perform this operation',
      });
    },
    { step: 'initialize', name: 'refuseAccess' },
  );
  return refusing;
}

test('an append to a misspelled events table names the table and says to create it or check the name, region and endpoint', async () => {
  const missing = uniqueName('no-such-events');
  const error: unknown = await orderStream(client, missing)
    .append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }], { expectedVersion: 0 })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TableNotFoundError);
  // One event at version 1 is a conditional PutItem.
  expect(error).toMatchObject({ code: 'dynamo.tableNotFound', table: missing, operation: 'PutItem', status: 500 });
  expect((error as Error).message).toContain(`"${missing}"`);
  expect((error as Error).message).toContain('dynafold tables create');
  expect((error as Error).message).toMatch(/region and endpoint/);
  expect((error as Error & { cause: Error }).cause.name).toBe('ResourceNotFoundException');
  // Several events are one commit, a PutItem too; with an idempotency key's sentinel, a transaction.
  const events = [
    { type: 'OrderPlaced', data: { customer: 'ada' } },
    { type: 'OrderShipped', data: {} },
  ] as const;
  const several = orderStream(client, missing).append({ orderId: 'o-1' }, events, { expectedVersion: 0 });
  await expect(several).rejects.toMatchObject({ code: 'dynamo.tableNotFound', table: missing, operation: 'PutItem', status: 500 });
  const keyed = orderStream(client, missing).append({ orderId: 'o-1' }, events, { expectedVersion: 0, idempotencyKey: 'k' });
  await expect(keyed).rejects.toMatchObject({ code: 'dynamo.tableNotFound', table: missing, operation: 'TransactWriteItems', status: 500 });
});

test("a read model's get and put on a misspelled table name it", async () => {
  const missing = uniqueName('no-such-views');
  const model = orderSummaries(client, missing);
  await expect(model.get({ orderId: 'o-1' })).rejects.toMatchObject({ code: 'dynamo.tableNotFound', table: missing, operation: 'GetItem' });
  const row = { orderId: 'o-1', customer: 'ada', status: 'placed', items: 0, total: 0, version: 1 };
  await expect(model.put(row)).rejects.toMatchObject({ code: 'dynamo.tableNotFound', table: missing, operation: 'UpdateItem' });
});

test('a Lambda batch whose read-model table is misspelled fails every record and logs one JSON line per row naming the table and projection', async () => {
  const missing = uniqueName('no-such-views');
  const summaries = orderSummaryProjection(orderStream(client, eventsTable), orderSummaries(client, missing));
  const event = await lambdaStreamEventOf(streamArn);
  const handler = lambdaHandler({ projections: [summaries] });

  const { result: response, lines } = await consoleLines(() => handler(event));

  // Each row's earliest record is reported: the source retries the batch from there.
  const earliest = ['o-1', 'o-2'].map((orderId) =>
    event.Records.findIndex((record) => record.dynamodb?.NewImage?.['pk']?.S === `Order#${orderId}` && record.eventName === 'INSERT'),
  );
  expect(response.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(
    earliest.map((position) => event.Records[position]?.dynamodb?.SequenceNumber).sort(),
  );
  expect(lines).toHaveLength(2);
  for (const [index, orderId] of ['o-1', 'o-2'].entries()) {
    const line = lines.find((entry) => (entry['key'] as { orderId?: string } | undefined)?.orderId === orderId);
    expect(line).toMatchObject({
      level: 'warn',
      projection: 'Order->OrderSummary',
      key: { orderId },
      event: { streamName: 'Order', streamId: orderId, version: 1, type: 'OrderPlaced' },
      code: 'dynamo.tableNotFound',
      error: { name: 'TableNotFoundError', table: missing, operation: 'GetItem' },
    });
    expect(String((line?.['error'] as { message?: string }).message)).toContain(missing);
    expect(earliest[index]).toBeGreaterThanOrEqual(0);
  }
});

test('logger: false silences the handler', async () => {
  const summaries = orderSummaryProjection(orderStream(client, eventsTable), orderSummaries(client, uniqueName('no-such-views')));
  const event = await lambdaStreamEventOf(streamArn);
  const { result, lines } = await consoleLines(() => lambdaHandler({ projections: [summaries], logger: false })(event));
  expect(result.batchItemFailures).toHaveLength(2);
  expect(lines).toEqual([]);
});

test('a missing checkpoint table is named, wherever the feed first touches it', async () => {
  const missing = uniqueName('no-such-checkpoints');
  const store = new DynamoCheckpointStore({ client, table: missing });
  const key = { consumer: 'default', streamArn };
  await expect(store.getCheckpoints(key)).rejects.toMatchObject({ code: 'dynamo.tableNotFound', table: missing, operation: 'Query' });
  await expect(store.putCheckpoint(key, 'shard-1', '1')).rejects.toMatchObject({
    code: 'dynamo.tableNotFound',
    table: missing,
    operation: 'PutItem',
  });
  await expect(store.acquireLease(key, { owner: 'me', now: Date.now(), durationMs: 10_000 })).rejects.toBeInstanceOf(TableNotFoundError);

  const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, checkpoints: store });
  await expect(feed[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'dynamo.tableNotFound', table: missing });
});

test("a feed on a stream that doesn't exist names the stream and its table", async () => {
  const missingArn = streamArn.replace(`table/${eventsTable}/`, 'table/no-such-table/');
  const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn: missingArn, checkpoints: new MemoryCheckpointStore() });
  const error: unknown = await feed[Symbol.asyncIterator]()
    .next()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StreamNotFoundError);
  expect(error).toMatchObject({ code: 'dynamo.streamNotFound', streamArn: missingArn, table: 'no-such-table', operation: 'DescribeStream' });
  expect((error as Error).message).toContain('LatestStreamArn');
});

test('access denied names the operation and the table, for the store, the read model and the checkpoint store', async () => {
  const refusingQuery = refusingClient('QueryCommand');
  const refusingGet = refusingClient('GetItemCommand');
  try {
    const read = orderStream(refusingQuery, eventsTable).read({ orderId: 'o-1' });
    await expect(read).rejects.toBeInstanceOf(AccessDeniedError);
    await expect(read).rejects.toMatchObject({ code: 'dynamo.accessDenied', table: eventsTable, operation: 'Query', status: 500 });
    await expect(read).rejects.toThrow(`DynamoDB denied Query on table "${eventsTable}": grant the credentials \`dynamodb:Query\``);

    await expect(orderSummaries(refusingGet, viewsTable).get({ orderId: 'o-1' })).rejects.toMatchObject({
      code: 'dynamo.accessDenied',
      table: viewsTable,
      operation: 'GetItem',
    });
    const store = new DynamoCheckpointStore({ client: refusingGet, table: uniqueName('checkpoints') });
    await expect(store.getLease({ consumer: 'default', streamArn })).rejects.toMatchObject({ code: 'dynamo.accessDenied', operation: 'GetItem' });
  } finally {
    refusingQuery.destroy();
    refusingGet.destroy();
  }
});

test('a refused table never counts towards parking a row: it is the deployment, not the row, that needs fixing', async () => {
  // Reads and the parking UpdateItem go through; every row write is refused.
  const refusingPut = refusingClient('PutItemCommand');
  try {
    const summaries = new Projection({
      stream: orderStream(refusingPut, eventsTable),
      readModel: orderSummaries(refusingPut, viewsTable),
      key: (streamId) => ({ orderId: streamId.orderId }),
      initial: (streamId) => initialSummary(streamId.orderId),
      evolve: (state, event) => evolveSummary(state, event),
      checkpoint: 'version',
      poison: { park: { afterAttempts: 1 } },
    });
    const event = await lambdaStreamEventOf(streamArn);
    const result = await processBatch(event.Records, { projections: { summaries }, source: 'lambda', logger: false });
    expect(result.outcomes.summaries.map((outcome) => outcome.status)).toEqual(['failed', 'failed']);
    for (const outcome of result.outcomes.summaries) expect(outcome).toMatchObject({ error: { code: 'dynamo.accessDenied', operation: 'PutItem' } });
  } finally {
    refusingPut.destroy();
  }
});
