/**
 * What a reader or writer still on 0.2, the last published release, makes of the commits this release
 * writes: it refuses them (a DecodeError), never misreads one, and its appends never land inside or over
 * a commit. The 0.2 code is in `../fixtures/reader-0.2.ts`, as released.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { eventsTableDefinition } from 'dynafold';
import { unmarshallImage } from 'dynafold/lambda';
import { DecodeError02, append02, decode02, readHead02 } from '../fixtures/reader-0.2';
import { createTestTable, testClient } from '../support/dynamo';
import { orderEventSchemas, orderStream } from '../support/orders';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../support/stream-records';

const client = testClient();
let table: string;
let streamArn: string;
let orders: ReturnType<typeof orderStream>;

beforeAll(async () => {
  const created = await createTestTable(client, eventsTableDefinition, 'older');
  table = created.name;
  streamArn = created.streamArn as string;
  orders = orderStream(client, table);
});
afterAll(() => client.destroy());

const threeEvents = [
  { type: 'OrderPlaced', data: { customer: 'ada' } },
  { type: 'ItemAdded', data: { sku: 'a', price: 2 } },
  { type: 'OrderShipped', data: {} },
] as const;

async function storedItem(partitionKey: string, first: number): Promise<Record<string, unknown>> {
  const { Item } = await client.send(
    new GetItemCommand({ TableName: table, Key: marshall({ pk: partitionKey, sk: `e#${String(first).padStart(10, '0')}` }), ConsistentRead: true }),
  );
  return unmarshall(Item ?? {});
}

test('0.2 refuses a commit of several events, from the table and from its stream record, with a DecodeError', async () => {
  await orders.append({ orderId: 'several' }, threeEvents, { expectedVersion: 0 });
  const commit = await storedItem('Order#several', 1);
  expect(() => decode02(orderEventSchemas, commit)).toThrow(DecodeError02);
  expect(() => decode02(orderEventSchemas, commit)).toThrow(/lacks a string streamId, a positive integer version or a string type/);
  const records = insertsOnly(await readStreamRecords(streamArn)).map(asLambdaRecord);
  const image = records.find((record) => record.dynamodb?.Keys?.['pk']?.S === 'Order#several')?.dynamodb?.NewImage;
  expect(image).toBeDefined();
  expect(() => decode02(orderEventSchemas, unmarshallImage(image as never))).toThrow(DecodeError02);
});

test("0.2's writers refused at the head, inside a commit and at its end; at its first version they would append inside it", async () => {
  await orders.append({ orderId: 'writers' }, threeEvents, { expectedVersion: 0 });
  // A 0.2 append at the head reads no version it knows, so it tries version 1, which the commit holds.
  expect(await readHead02(client, table, 'Order#writers')).toBe(0);
  expect(await append02(client, table, 'Order#writers', 0, 'OrderShipped', {})).toBe(false);
  // Inside the commit and at its end, 0.2's ConditionCheck finds no item of that version.
  for (const expectedVersion of [2, 3]) expect(await append02(client, table, 'Order#writers', expectedVersion, 'OrderShipped', {})).toBe(false);
  expect((await orders.read({ orderId: 'writers' })).map((event) => event.version)).toEqual([1, 2, 3]);
  // At the commit's first version it finds the commit's own key and writes version 2 beside it: why
  // `itemPerEvent` exists for the length of a rolling upgrade beside 0.2's writers.
  expect(await append02(client, table, 'Order#writers', 1, 'OrderShipped', {})).toBe(true);
});

test('with itemPerEvent, every 0.2 append onto the stream is refused: each event is an item at its version', async () => {
  const alongside02 = orderStream(client, table, { itemPerEvent: true });
  const result = await alongside02.append({ orderId: 'upgrade' }, threeEvents, { expectedVersion: 0 });
  expect(result.version).toBe(3);
  for (const expectedVersion of [0, 1, 2]) expect(await append02(client, table, 'Order#upgrade', expectedVersion, 'OrderShipped', {})).toBe(false);
  // Version 3, the head, is where a 0.2 writer rightly appends: it lands after the stream, not inside it.
  expect(await append02(client, table, 'Order#upgrade', 3, 'OrderShipped', {})).toBe(true);
  // Each event was written as a commit of one, which this release reads like any commit.
  expect((await storedItem('Order#upgrade', 2))['type']).toBe('ItemAdded');
  expect((await alongside02.read({ orderId: 'upgrade' })).slice(0, 3)).toEqual(result.events);
  expect(await orders.version({ orderId: 'upgrade' })).toBe(4);
});
