/**
 * The test kit under vitest (run by `npm run test:vitest`, and by the jest test beside it): the vitest
 * global setup started DynamoDB Local, and the specs run as they do under jest.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DYNAMODB_ENDPOINT, createTestTables, deciderSpec, localClientConfig, projectionSpec, type TestTables } from 'dynafold/testing';
import { orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { emptyOrder, evolveOrder, orderStream, type OrderState } from '../support/orders';

const client = new DynamoDBClient(localClientConfig());
let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables(client);
});
afterAll(async () => {
  await tables.delete();
  client.destroy();
});

test('the global setup handed the workers an endpoint', () => {
  expect(process.env[DYNAMODB_ENDPOINT]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  process.stdout.write(`vitest endpoint ${process.env[DYNAMODB_ENDPOINT]}\n`);
});

test('a projection spec: every delivery folds the order summary once', async () => {
  const result = await projectionSpec(({ events, readModels }) =>
    orderSummaryProjection(orderStream(client, events), orderSummaries(client, readModels)),
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
    .thenRows([{ key: { orderId: 'o-1' }, row: { orderId: 'o-1', customer: 'ada', status: 'placed', items: 1, total: 12, version: 2 } }]);
  expect(result.deliveries.map((delivery) => delivery.applied)).toEqual([2, 2, 2, 2]);
});

test('a decider spec through the store', async () => {
  await deciderSpec(orderStream(client, tables.events as string), { store: true })
    .given([{ type: 'OrderPlaced', data: { customer: 'ada' } }])
    .when<OrderState>({ initial: emptyOrder, evolve: evolveOrder, decide: (state) => (state.shipped ? [] : [{ type: 'OrderShipped', data: {} }]) })
    .thenEvents([{ type: 'OrderShipped', data: {} }]);
});
