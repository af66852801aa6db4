// Decider specs: given events, when a command, then its events or its
// error. Pure (no DynamoDB), or through `execute` on DynamoDB Local.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  createTestTables,
  deciderSpec,
  localClientConfig,
  type TestTables,
} from 'dynafold/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { OrderNotPlacedError, addItem } from './commands.js';
import { orderStream } from './orders.js';

const client = new DynamoDBClient(localClientConfig());
let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables(client);
});
afterAll(async () => {
  await tables.delete();
  client.destroy();
});

test('an order that was not placed takes no item', () =>
  deciderSpec(orderStream(client, 'unused'))
    .given([])
    .when(addItem({ sku: 'book', price: 12 }))
    // A class, or a predicate (error) => boolean
    .thenThrows(OrderNotPlacedError));

test('a placed order takes an item, through execute', async () => {
  const { state, version } = await deciderSpec(
    orderStream(client, tables.events ?? ''),
    { store: true },
  )
    .given([{ type: 'OrderPlaced', data: { customer: 'ada' } }])
    .when(addItem({ sku: 'book', price: 12 }))
    // Type and data (and metadata where given)
    .thenEvents([
      { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
    ]);
  expect({ items: state.items, version }).toEqual({
    items: 1,
    version: 2,
  });
});
