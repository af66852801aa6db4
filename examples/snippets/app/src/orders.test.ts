// The projection's spec: the events appended to DynamoDB Local, their
// real records delivered as Lambda would (in order, shuffled,
// duplicated, on ten lanes with retries), then the row.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localClientConfig, projectionSpec } from 'dynafold/testing';
import { afterAll, test } from 'vitest';
import {
  orderStream,
  orderSummaries,
  orderSummaryProjection,
} from './orders.js';

const client = new DynamoDBClient(localClientConfig());
afterAll(() => client.destroy());

test('a summary counts items and totals, in any delivery', () =>
  projectionSpec(({ events, readModels }) =>
    orderSummaryProjection(
      orderStream(client, events),
      orderSummaries(client, readModels),
    ),
  )
    .given([
      {
        streamId: { orderId: 'o-1' },
        events: [
          { type: 'OrderPlaced', data: { customer: 'ada' } },
          { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
        ],
      },
    ])
    .thenRows([
      {
        key: { orderId: 'o-1' },
        row: {
          orderId: 'o-1',
          customer: 'ada',
          items: 1,
          total: 12,
          version: 2,
        },
      },
    ]));
