// A projection spec with a check of its own after each delivery, and
// what the deliveries did.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localClientConfig, projectionSpec } from 'dynafold/testing';
import { afterAll, expect, test } from 'vitest';
import {
  orderStream,
  orderSummaries,
  orderSummaryProjection,
} from './orders.js';

const client = new DynamoDBClient(localClientConfig());
afterAll(() => client.destroy());

test('two appends fold into one row, each event once', async () => {
  const result = await projectionSpec(({ events, readModels }) =>
    orderSummaryProjection(
      orderStream(client, events),
      orderSummaries(client, readModels),
    ),
  )
    .given([
      {
        streamId: { orderId: 'o-1' },
        events: [{ type: 'OrderPlaced', data: { customer: 'ada' } }],
      },
      {
        streamId: { orderId: 'o-1' },
        events: [
          { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
          { type: 'ItemAdded', data: { sku: 'pen', price: 3 } },
        ],
      },
    ])
    .thenRows(
      [
        {
          key: { orderId: 'o-1' },
          row: {
            orderId: 'o-1',
            customer: 'ada',
            items: 2,
            total: 15,
            version: 3,
          },
        },
      ],
      // After each delivery, with its projection and tables
      async ({ projection }) =>
        expect(
          await projection.readModel.get({ orderId: 'o-1' }),
        ).toMatchObject({ total: 15 }),
    );
  // Each of the four deliveries applied the three events once.
  expect(result.deliveries.map((delivery) => delivery.applied)).toEqual(
    [3, 3, 3, 3],
  );
});
