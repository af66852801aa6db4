import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { createTestTables } from 'dynafold/testing';
import { testClient } from '../support/dynamo';
import { orderSummaries } from '../support/order-projection';

const client = testClient();
afterAll(() => client.destroy());

const describe = (name: string | undefined) => client.send(new DescribeTableCommand({ TableName: name }));

test('createTestTables makes events, read-model, outbox and checkpoint tables under unique names; delete() removes them all', async () => {
  const tables = await createTestTables(client, {
    prefix: 'kit',
    readModels: [orderSummaries(client, 'any-table')],
    outbox: true,
    checkpoints: true,
  });
  const names = [tables.events, tables.readModels, tables.outbox, tables.checkpoints];
  expect(names).toEqual([
    expect.stringMatching(/^kit-events-/),
    expect.stringMatching(/^kit-views-/),
    expect.stringMatching(/^kit-outbox-/),
    expect.stringMatching(/^kit-checkpoints-/),
  ]);
  const events = await describe(tables.events);
  expect(events.Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
  expect(tables.eventsStreamArn).toBe(events.Table?.LatestStreamArn);
  // The read-model table is shaped by the models' keys and indexes, whatever table they were made for.
  expect((await describe(tables.readModels)).Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['gsi1']);
  expect((await describe(tables.outbox)).Table?.KeySchema).toHaveLength(2);
  expect((await describe(tables.checkpoints)).Table?.KeySchema?.map((key) => key.AttributeName)).toEqual(['pk', 'sk']);

  await tables.delete();
  for (const name of names) await expect(describe(name)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  await expect(tables.delete()).resolves.toBeUndefined();
});

test('only what is asked for: no events table with events: false', async () => {
  const tables = await createTestTables(client, { events: false, checkpoints: true });
  expect(tables).toMatchObject({ events: undefined, eventsStreamArn: undefined, readModels: undefined, outbox: undefined });
  await describe(tables.checkpoints);
  await tables.delete();
  await expect(describe(tables.checkpoints)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
});
