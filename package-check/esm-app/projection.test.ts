// The order summary's projection spec under vitest, on the DynamoDB Local of the kit's global setup.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DYNAMODB_ENDPOINT, localClientConfig, projectionSpec } from 'dynafold/testing';
import { afterAll, expect, test } from 'vitest';
import { orderProjection, orderStream, orderSummaries } from './orders.js';

const client = new DynamoDBClient(localClientConfig());
afterAll(() => client.destroy());

test('the global setup started DynamoDB Local', () => {
  expect(process.env[DYNAMODB_ENDPOINT]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

test('every delivery folds the order summary once', async () => {
  const result = await projectionSpec(({ events, readModels }) => orderProjection(orderStream(client, events), orderSummaries(client, readModels)))
    .given([
      {
        streamId: { orderId: 'o-1' },
        events: [
          { type: 'OrderPlaced', data: { customer: 'ada' } },
          { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
        ],
      },
    ])
    .thenRows([{ key: { orderId: 'o-1' }, row: { orderId: 'o-1', customer: 'ada', items: 1, total: 12, version: 2 } }]);
  expect(result.deliveries.length).toBeGreaterThan(0);
  for (const delivery of result.deliveries) expect(delivery.applied).toBe(2);
});
