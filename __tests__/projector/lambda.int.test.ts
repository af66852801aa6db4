/**
 * lambdaHandler on DynamoDB Streams events in Lambda's shape, made from the real records of a table's
 * stream: event INSERTs of interleaved appends (a record each: an append's commit, of one event or
 * several), plus a snapshot, an idempotency sentinel, an event item MODIFY and a foreign item's INSERT,
 * MODIFY and REMOVE.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { DecodeError, DynamoRequestError, ValidationError, eventsTableDefinition, readModelTableDefinition, type StreamEvent } from 'dynafold';
import { lambdaHandler, type ProcessResult } from 'dynafold/lambda';
import { describeRecord, isEventInsert, lambdaStreamEventOf, withNewImage, writeForeignItemLifecycle } from '../fixtures/dynamodb-stream-event';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';

const client = testClient();
let stream: ReturnType<typeof orderStream>;
let eventsTable: string;
let streamArn: string;
let viewsTable: string;
let fixture: DynamoDBStreamEvent;
const orderIds = ['o-1', 'o-2', 'o-3'];
const truth = new Map<string, OrderEvent[]>();

afterAll(() => client.destroy());

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'lambda-events');
  eventsTable = events.name;
  streamArn = events.streamArn as string;
  stream = orderStream(client, eventsTable);
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'lambda-views')).name;

  // Appends of several events from concurrent writers, one with an idempotency key (a sentinel item).
  await Promise.all(
    orderIds.map(async (orderId, i) => {
      await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: `customer-${i}` } }], {
        expectedVersion: 0,
        idempotencyKey: `place-${orderId}`,
      });
      await stream.append({ orderId }, [
        { type: 'ItemAdded', data: { sku: 'book', price: 12 + i } },
        { type: 'ItemAdded', data: { sku: 'pen', price: 2 } },
      ]);
      await stream.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 'lamp', price: 30 } }]);
      if (i !== 1) await stream.append({ orderId }, [{ type: 'OrderShipped', data: {} }]);
    }),
  );
  // A snapshot written twice (INSERT, then MODIFY), a TTL set on an old event (MODIFY of an event item),
  // and another kind of item created, changed and deleted.
  await stream.saveSnapshot({ orderId: 'o-1' }, { version: 2, state: { items: 1 } });
  await stream.saveSnapshot({ orderId: 'o-1' }, { version: 4, state: { items: 3 } });
  await client.send(
    new UpdateItemCommand({
      TableName: eventsTable,
      Key: { pk: { S: 'Order#o-3' }, sk: { S: 'e#0000000001' } },
      UpdateExpression: 'SET expiresAt = :at',
      ExpressionAttributeValues: { ':at': { N: '4102444800' } },
    }),
  );
  await writeForeignItemLifecycle(client, eventsTable);
  for (const orderId of orderIds) truth.set(orderId, await stream.read({ orderId }));
  fixture = await lambdaStreamEventOf(streamArn);
});

const idOf = (event: StreamEvent) => `${event.streamId}@${event.version}`;
const withoutTimestamps = <T extends object>(row: T | undefined) => row && { ...row, createdAt: undefined, updatedAt: undefined };
const allEvents = () => orderIds.flatMap((orderId) => truth.get(orderId) ?? []);
const sequenceNumber = (record: DynamoDBRecord | undefined) => record?.dynamodb?.SequenceNumber as string;

/** The versions an event INSERT's commit holds: `count` of them (1 without one) from its sort key's. */
function versionsOf(record: DynamoDBRecord | undefined): number[] {
  const first = record === undefined ? undefined : describeRecord(record).version;
  const count = Number(record?.dynamodb?.NewImage?.['count']?.N ?? 1);
  return first === undefined ? [] : Array.from({ length: count }, (_, index) => first + index);
}

let models = 0;
function summariesOn(dynamo = client) {
  const model = orderSummaries(dynamo, viewsTable, `LambdaSummary${++models}`);
  return { model, summaries: orderSummaryProjection(stream, model) };
}

async function expectRowsAreFolds(model: ReturnType<typeof orderSummaries>, ids: ReadonlyArray<string> = orderIds) {
  for (const orderId of ids) {
    expect(withoutTimestamps(await model.get({ orderId }, { consistent: true }))).toEqual(
      withoutTimestamps(foldSummary(orderId, truth.get(orderId) ?? [])),
    );
  }
}

test('the fixture is a DynamoDBStreamEvent in Lambda shape, from the real feed, with records that are not event INSERTs', () => {
  const records = fixture.Records;
  for (const record of records) {
    expect(record).toEqual({
      eventID: expect.any(String),
      eventName: expect.stringMatching(/^(INSERT|MODIFY|REMOVE)$/),
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      eventSourceARN: streamArn,
      dynamodb: expect.objectContaining({
        ApproximateCreationDateTime: expect.any(Number),
        Keys: { pk: { S: expect.any(String) }, sk: { S: expect.any(String) } },
        SequenceNumber: expect.stringMatching(/^\d{21}$/),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      }),
    });
  }
  const kinds = records.map(describeRecord);
  const inserts = records.filter((record) => isEventInsert(record, 'Order'));
  // One record per append, holding its events: 11 appends of the 14 events.
  expect(inserts).toHaveLength(11);
  expect(inserts.filter((record) => versionsOf(record).length > 1)).toHaveLength(orderIds.length);
  const held = inserts.flatMap((record) => versionsOf(record).map((version) => `${describeRecord(record).streamId}@${version}`));
  expect(held.sort()).toEqual(allEvents().map(idOf).sort());
  expect(kinds.filter((kind) => kind.eventName === 'MODIFY' && kind.marker === 'Order')).toHaveLength(1); // the TTL set on an event
  expect(records.filter((record) => record.eventName === 'MODIFY').length).toBeGreaterThanOrEqual(3); // + snapshot, foreign item
  const removal = records.find((record) => record.eventName === 'REMOVE');
  expect(removal?.dynamodb?.NewImage).toBeUndefined();
  expect(removal?.dynamodb?.OldImage?.['pk']).toEqual({ S: 'Customer#c-1' });
  expect(records.filter((record) => record.dynamodb?.Keys?.['pk']?.S === 'Customer#c-1').map((record) => record.eventName)).toEqual([
    'INSERT',
    'MODIFY',
    'REMOVE',
  ]);
  expect(records.filter((record) => record.eventName === 'INSERT' && record.dynamodb?.NewImage?.['_df'] === undefined).length).toBeGreaterThanOrEqual(
    5,
  ); // snapshot, sentinels, foreign
  const sequence = records.map(sequenceNumber);
  expect([...sequence].sort()).toEqual(sequence);
});

test('the handler folds every row; onBatch sees the unrouted events of every event INSERT and nothing else', async () => {
  const { model, summaries } = summariesOn();
  const seen: Array<ProcessResult<{ summaries: typeof summaries }, { Order: typeof stream }, DynamoDBRecord>> = [];
  const handler = lambdaHandler({ projections: { summaries }, streams: { Order: stream }, onBatch: (result) => void seen.push(result) });

  await expect(handler(fixture)).resolves.toEqual({ batchItemFailures: [] });

  await expectRowsAreFolds(model);
  const [result] = seen;
  expect(seen).toHaveLength(1);
  // Every event of every event INSERT, in order, at its record's position (a commit's events share one).
  const insertEvents = fixture.Records.flatMap((record, position) =>
    isEventInsert(record, 'Order') ? versionsOf(record).map((version) => ({ position, streamId: describeRecord(record).streamId, version })) : [],
  );
  expect(result?.unrouted.map(({ position, event }) => ({ position, streamId: event.streamId, version: event.version }))).toEqual(insertEvents);
  for (const { stream: name, event } of result?.unrouted ?? []) {
    expect(name).toBe('Order');
    if (event.type === 'ItemAdded') expect(typeof event.data.price).toBe('number'); // `type` narrows `data`
  }
  const applied = (result?.outcomes.summaries ?? []).flatMap((outcome) => (outcome.status === 'applied' ? outcome.applied.map(idOf) : ['failed']));
  expect([...applied].sort()).toEqual(allEvents().map(idOf).sort());
  expect(result?.decodeFailures).toEqual([]);

  // The same event again (a retried invocation): the checkpoints skip everything.
  seen.length = 0;
  await expect(handler(fixture)).resolves.toEqual({ batchItemFailures: [] });
  for (const outcome of seen[0]?.outcomes.summaries ?? []) expect(outcome).toMatchObject({ status: 'applied', applied: [] });
  await expectRowsAreFolds(model);
});

test('a partially failing batch reports exactly the undecodable record and the failed row earliest record', async () => {
  // Every write of o-2's row fails (the read-model table refuses it); the other rows are unaffected.
  const faulty = testClient();
  faulty.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutItemCommand' && JSON.stringify((args as { input?: unknown }).input).includes('o-2')) {
        throw Object.assign(new Error('Injected outage of the read-model table'), { name: 'InternalServerError' });
      }
      return next(args);
    },
    { step: 'initialize', name: 'failRowTwo' },
  );
  try {
    const { model, summaries } = summariesOn(faulty);
    // o-1's version 2 arrives with data its schema refuses (price as a string). It is the first event of a
    // commit of two (versions 2 and 3): the whole record is undecodable, version 3 with it.
    const records = fixture.Records.map((record) => {
      const { streamId, version } = describeRecord(record);
      if (!isEventInsert(record, 'Order') || streamId !== 'o-1' || version !== 2) return record;
      return withNewImage(record, (image) => {
        const [first] = (image['events'] as { L: Array<{ M: { data: { M: Record<string, unknown> } } }> }).L;
        (first as { M: { data: { M: Record<string, unknown> } } }).M.data.M['price'] = { S: 'twelve' };
      });
    });
    const corrupt = records.findIndex((record, position) => record !== fixture.Records[position]);
    expect(versionsOf(records[corrupt])).toEqual([2, 3]);
    const rowTwo = records.findIndex((record) => isEventInsert(record, 'Order') && describeRecord(record).streamId === 'o-2');
    expect(corrupt).toBeGreaterThanOrEqual(0);
    let decodeFailures: ReadonlyArray<{ position: number; error: unknown }> = [];
    let failedRows: string[] = [];
    const handler = lambdaHandler({
      projections: { summaries },
      streams: { Order: stream },
      onBatch: (result) => {
        decodeFailures = result.decodeFailures;
        failedRows = result.outcomes.summaries.flatMap((outcome) =>
          outcome.status === 'failed' ? [`${outcome.streamId}: ${String((outcome.error as Error).message)}`] : [],
        );
      },
    });

    const response = await handler({ Records: records });

    // Named first, so that an unexpected failure says which row failed and why.
    expect(failedRows).toEqual([expect.stringMatching(/^o-2: .*Injected outage/)]);
    expect(response).toEqual({
      batchItemFailures: [corrupt, rowTwo].sort((a, b) => a - b).map((position) => ({ itemIdentifier: sequenceNumber(records[position]) })),
    });
    expect(decodeFailures.map((failure) => failure.position)).toEqual([corrupt]);
    expect(decodeFailures[0]?.error).toBeInstanceOf(DecodeError);
    expect(await model.get({ orderId: 'o-2' }, { consistent: true })).toBeUndefined();
    // o-1's later events were delivered: its undecodable versions 2 and 3 were read from the store to fill the gap.
    await expectRowsAreFolds(model, ['o-1', 'o-3']);
  } finally {
    faulty.destroy();
  }
});

test('onBatch adds failed records (a failed side effect) to the response, and the retry is skipped by the checkpoints', async () => {
  const { model, summaries } = summariesOn();
  const shipped: number[] = [];
  const handler = lambdaHandler({
    projections: { summaries },
    streams: { Order: stream },
    onBatch: (result) => {
      for (const outcome of result.outcomes.summaries) expect(outcome.status).toBe('applied');
      // Publishing "order shipped" fails: fail those records so they come back.
      for (const { event, position } of result.unrouted) {
        if (event.type === 'OrderShipped') {
          shipped.push(position);
          result.failedRecords.push(position);
        }
      }
    },
  });

  const response = await handler(fixture);

  expect(shipped).toHaveLength(2);
  expect(response).toEqual({ batchItemFailures: shipped.map((position) => ({ itemIdentifier: sequenceNumber(fixture.Records[position]) })) });
  await expectRowsAreFolds(model);

  // Lambda retries from the lowest reported record; this time publishing works. Nothing is applied twice:
  // the retried events are alreadyApplied, to republish (at least once).
  const first = fixture.Records.findIndex((record) => sequenceNumber(record) === response.batchItemFailures[0]?.itemIdentifier);
  const retried: string[] = [];
  const retry = lambdaHandler({
    projections: { summaries },
    streams: { Order: stream },
    onBatch: (result) => {
      for (const outcome of result.outcomes.summaries) {
        expect(outcome).toMatchObject({ status: 'applied', applied: [] });
        if (outcome.status === 'applied') retried.push(...outcome.alreadyApplied.filter((event) => event.type === 'OrderShipped').map(idOf));
      }
    },
  });
  await expect(retry({ Records: fixture.Records.slice(first) })).resolves.toEqual({ batchItemFailures: [] });
  expect(retried.sort()).toEqual(['o-1@5', 'o-3@5']);
  await expectRowsAreFolds(model);
});

test('onBatch throwing fails the invocation', async () => {
  const { summaries } = summariesOn();
  const handler = lambdaHandler({
    projections: { summaries },
    onBatch: () => {
      throw new Error('publisher unavailable');
    },
  });
  await expect(handler(fixture)).rejects.toThrow('publisher unavailable');
});

test('an event without a Records array is a ValidationError', async () => {
  const { summaries } = summariesOn();
  const handler = lambdaHandler({ projections: { summaries } });
  await expect(handler({} as DynamoDBStreamEvent)).rejects.toBeInstanceOf(ValidationError);
  await expect(handler({ Records: { length: 0 } } as unknown as DynamoDBStreamEvent)).rejects.toBeInstanceOf(ValidationError);
  await expect(handler(undefined as unknown as DynamoDBStreamEvent)).rejects.toMatchObject({ code: 'store.validation' });
  await expect(handler({ Records: [] })).resolves.toEqual({ batchItemFailures: [] });
});

test('rows whose writes fail get a DynamoRequestError carrying the SDK error, and each row reports its earliest record', async () => {
  const faulty = testClient();
  faulty.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutItemCommand') throw Object.assign(new Error('Injected outage'), { name: 'InternalServerError' });
      return next(args);
    },
    { step: 'initialize', name: 'failEveryWrite' },
  );
  try {
    const { summaries } = summariesOn(faulty);
    let failures: unknown[] = [];
    const handler = lambdaHandler({
      projections: { summaries },
      onBatch: (result) => void (failures = result.outcomes.summaries.flatMap((outcome) => (outcome.status === 'failed' ? [outcome.error] : []))),
    });
    const response = await handler(fixture);
    expect(failures).toHaveLength(orderIds.length);
    for (const error of failures) {
      expect(error).toBeInstanceOf(DynamoRequestError);
      expect((error as Error).cause).toMatchObject({ name: 'InternalServerError', message: 'Injected outage' });
    }
    // One record per row: each row's earliest.
    const earliest = orderIds.map((orderId) =>
      fixture.Records.findIndex((record) => isEventInsert(record, 'Order') && describeRecord(record).streamId === orderId),
    );
    expect(response.batchItemFailures).toEqual(
      earliest.sort((a, b) => a - b).map((position) => ({ itemIdentifier: sequenceNumber(fixture.Records[position]) })),
    );
  } finally {
    faulty.destroy();
  }
});
