// #region projection-spec
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  createTestTables,
  deciderSpec,
  localClientConfig,
  projectionSpec,
  type TestTables,
} from 'dynafold/testing';
// Jest: the same, with its globals
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  addItem,
  OrderShippedError,
  orderEvents,
  orderSummaries,
  orderSummaryProjection,
} from './orders';

const client = new DynamoDBClient(localClientConfig());
afterAll(() => client.destroy());

test('a summary counts items and totals, in any delivery', async () => {
  const result = await projectionSpec(({ events, readModels }) =>
    orderSummaryProjection(
      orderEvents(client, events),
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
            status: 'placed',
            items: 1,
            total: 12,
            version: 2,
          },
        },
      ],
      async ({ projection }) =>
        expect(
          (
            await projection.readModel.query('byStatus', {
              status: 'placed',
            })
          ).items,
        ).toHaveLength(1),
    );
  expect(result.deliveries.map((delivery) => delivery.applied)).toEqual(
    [2, 2, 2, 2],
  );
});
// #endregion projection-spec

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables(client);
});
afterAll(() => tables.delete());

// #region decider-spec
test('a shipped order takes no more items', () =>
  deciderSpec(orderEvents(client, 'orders'))
    .given([
      { type: 'OrderPlaced', data: { customer: 'ada' } },
      { type: 'OrderShipped', data: {} },
    ])
    .when(addItem({ sku: 'book', price: 12 }))
    // A class, or a predicate (error) => boolean
    .thenThrows(OrderShippedError));

test('an item is added', async () => {
  const { state, version } = await deciderSpec(
    orderEvents(client, tables.events!),
    { store: true },
  )
    .given([{ type: 'OrderPlaced', data: { customer: 'ada' } }])
    .when(addItem({ sku: 'book', price: 12 }))
    .thenEvents([
      { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
    ]); // type and data; metadata where given
  expect({ items: state.items, version }).toEqual({
    items: 1,
    version: 2,
  });
});
// #endregion decider-spec
