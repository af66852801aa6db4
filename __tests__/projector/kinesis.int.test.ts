/**
 * kinesisHandler: a table that streams its changes to Kinesis Data Streams. The records are built from
 * the real images of DynamoDB Local's stream in Kinesis' format (base64 JSON in `kinesis.data`), and
 * delivered shuffled, duplicated and in batches on parallel lanes, as Kinesis may deliver them.
 */
import type { KinesisStreamEvent, KinesisStreamHandler } from 'aws-lambda';
import fc from 'fast-check';
import { Projection, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { kinesisHandler, type LambdaKinesisRecord, type PartialBatchResponse } from 'dynafold/lambda';
import { toKinesisRecord } from 'dynafold/local';
import { writeForeignItemLifecycle } from '../fixtures/dynamodb-stream-event';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { createTestTable, testClient } from '../support/dynamo';
import { evolveSummary, foldSummary, initialSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';
import { randomInt, seededRandom, shuffle } from '../support/random';
import { readStreamRecords } from '../support/stream-records';

const client = testClient();
let viewsTable: string;
let models = 0;

afterAll(() => client.destroy());
beforeAll(async () => {
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'kinesis-views')).name;
});

async function orderTable() {
  const table = await createTestTable(client, eventsTableDefinition, 'kinesis-events');
  return { table: table.name, streamArn: table.streamArn as string, stream: orderStream(client, table.name) };
}

async function kinesisRecordsOf(streamArn: string, tableName: string): Promise<LambdaKinesisRecord[]> {
  const kinesisArn = 'arn:aws:kinesis:ddblocal:000000000000:stream/orders';
  return (await readStreamRecords(streamArn)).map((record) => toKinesisRecord(record, { streamArn: kinesisArn, tableName }));
}

/** Delivers `records` shuffled, some twice, in batches on lanes; each lane retries from the first failure it is told. */
async function deliver(
  records: ReadonlyArray<LambdaKinesisRecord>,
  seed: number,
  handle: (event: { Records: LambdaKinesisRecord[] }) => Promise<PartialBatchResponse>,
) {
  const random = seededRandom(seed);
  const copies = shuffle(
    records.flatMap((record) => (random() < 0.3 ? [record, record] : [record])),
    random,
  );
  const lanes: LambdaKinesisRecord[][][] = [[], [], []];
  for (let start = 0; start < copies.length;) {
    const size = randomInt(random, 1, 8);
    lanes[randomInt(random, 0, lanes.length - 1)]?.push(copies.slice(start, start + size));
    start += size;
  }
  await Promise.all(
    lanes.map(async (batches) => {
      for (let batch of batches) {
        for (let tries = 0; tries < 20; tries++) {
          const first = (await handle({ Records: batch })).batchItemFailures[0];
          if (first === undefined) break;
          batch = batch.slice(batch.findIndex((record) => record.kinesis.sequenceNumber === first.itemIdentifier));
        }
      }
    }),
  );
}

// Order ids from two letters, so appends of one case interleave on the same few streams.
const appends = fc.array(fc.record({ orderId: fc.constantFrom('a', 'b', 'ab'), items: fc.integer({ min: 1, max: 3 }), ship: fc.boolean() }), {
  minLength: 1,
  maxLength: 8,
});

test(
  'every row equals its fold after shuffled, duplicated Kinesis delivery on parallel lanes',
  async () => {
    await fc.assert(
      fc.asyncProperty(appends, fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (plan, seed) => {
        const { table, streamArn, stream } = await orderTable();
        for (const [n, step] of plan.entries()) {
          const placed = (await stream.version({ orderId: step.orderId })) > 0;
          await stream.append({ orderId: step.orderId }, [
            ...(placed ? [] : [{ type: 'OrderPlaced' as const, data: { customer: `c${n}` } }]),
            ...Array.from({ length: step.items }, (_unused, i) => ({ type: 'ItemAdded' as const, data: { sku: `s${i}`, price: i + 1 } })),
            ...(step.ship ? [{ type: 'OrderShipped' as const, data: {} }] : []),
          ]);
        }
        await writeForeignItemLifecycle(client, table);
        const summaries = orderSummaries(client, viewsTable, `KinesisSummary${++models}`);
        const handler = kinesisHandler({ projections: { summaries: orderSummaryProjection(stream, summaries) } });
        await deliver(await kinesisRecordsOf(streamArn, table), seed, handler);
        for (const orderId of new Set(plan.map((step) => step.orderId))) {
          const events: OrderEvent[] = await stream.read({ orderId });
          expect(await summaries.get({ orderId })).toMatchObject(foldSummary(orderId, events));
        }
      }),
      propertySettings(10),
    );
  },
  propertyTimeout(10),
);

test('failures are reported by Kinesis sequence number: a row whose evolve throws, and a record whose data is not a change record', async () => {
  const { table, streamArn, stream } = await orderTable();
  await stream.append({ orderId: 'ok' }, [{ type: 'OrderPlaced', data: { customer: 'fine' } }]);
  await stream.append({ orderId: 'bad' }, [
    { type: 'OrderPlaced', data: { customer: 'poison' } },
    { type: 'ItemAdded', data: { sku: 'x', price: 1 } },
  ]);
  const records = await kinesisRecordsOf(streamArn, table);
  const garbage: LambdaKinesisRecord = {
    ...records[0]!,
    kinesis: { ...records[0]!.kinesis, sequenceNumber: '9'.repeat(56), data: Buffer.from('not json').toString('base64') },
  };
  const summaries = orderSummaries(client, viewsTable, `KinesisSummary${++models}`);
  const projection = new Projection({
    stream,
    readModel: summaries,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => {
      if (event.type === 'OrderPlaced' && event.data.customer === 'poison') throw new Error('poison');
      return evolveSummary(state, event);
    },
    checkpoint: 'version',
  });
  const firstOfBad = records.find((record) => {
    const change = JSON.parse(Buffer.from(record.kinesis.data, 'base64').toString('utf8')) as {
      dynamodb: { NewImage?: { pk?: { S?: string }; sk?: { S?: string } } };
    };
    return change.dynamodb.NewImage?.pk?.S === 'Order#bad' && change.dynamodb.NewImage.sk?.S === 'e#0000000001';
  });

  const handler = kinesisHandler({ projections: { summaries: projection } });
  const response = await handler({ Records: [...records, garbage] });
  expect(response.batchItemFailures).toEqual([
    { itemIdentifier: firstOfBad?.kinesis.sequenceNumber },
    { itemIdentifier: garbage.kinesis.sequenceNumber },
  ]);
  expect(await summaries.get({ orderId: 'ok' })).toMatchObject({ customer: 'fine', version: 1 });
  expect(await summaries.get({ orderId: 'bad' })).toBeUndefined();
});

test('the handler fits @types/aws-lambda: KinesisStreamHandler, KinesisStreamEvent', async () => {
  const { table, streamArn, stream } = await orderTable();
  await stream.append({ orderId: 't' }, [{ type: 'OrderPlaced', data: { customer: 'typed' } }]);
  const summaries = orderSummaries(client, viewsTable, `KinesisSummary${++models}`);
  const handler: KinesisStreamHandler = kinesisHandler({ projections: { summaries: orderSummaryProjection(stream, summaries) } });
  const event = { Records: await kinesisRecordsOf(streamArn, table) } as KinesisStreamEvent;
  await expect(Promise.resolve(handler(event, {} as never, () => undefined))).resolves.toEqual({ batchItemFailures: [] });
  expect(await summaries.get({ orderId: 't' })).toMatchObject({ customer: 'typed', version: 1 });
});
