// The Lambda handler itself, on the real records of a table's stream,
// handed over as Lambda does (binary as base64, dates as epoch seconds).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { readStreamRecords, toLambdaRecord } from 'dynafold/local';
import { createTestTables, localClientConfig } from 'dynafold/testing';
import { afterAll, expect, test } from 'vitest';
import {
  orderStream,
  orderSummaries,
  ordersHandler,
} from './orders.js';

const client = new DynamoDBClient(localClientConfig());
const streams = new DynamoDBStreamsClient(localClientConfig());
afterAll(() => {
  client.destroy();
  streams.destroy();
});

test('the handler projects what the stream delivers', async () => {
  const tables = await createTestTables(client, {
    readModels: [orderSummaries(client, 'shape-only')],
  });
  try {
    const events = tables.events ?? '';
    const views = tables.readModels ?? '';
    const streamArn = tables.eventsStreamArn ?? '';
    await orderStream(client, events).append({ orderId: 'o-1' }, [
      { type: 'OrderPlaced', data: { customer: 'ada' } },
    ]);
    const records = await readStreamRecords(streams, streamArn);
    const answer = await ordersHandler(client, { events, views })({
      Records: records.map((record) =>
        toLambdaRecord(record, { streamArn }),
      ),
    });
    expect(answer.batchItemFailures).toEqual([]);
    expect(
      await orderSummaries(client, views).get({ orderId: 'o-1' }),
    ).toMatchObject({ customer: 'ada', version: 1 });
  } finally {
    await tables.delete();
  }
});
