import { CreateTableCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';
import { ConfigurationError, DecodeError, ReadModel, ValidationError, readModelTableDefinition } from 'dynafold';
import { testClient, uniqueName } from '../support/dynamo';
import { range } from '../support/orders';
import { countRequests } from '../support/requests';

const client = testClient();
const requests = countRequests(client);
const table = uniqueName('views');

const summarySchema = z.object({
  orderId: z.string(),
  customer: z.string(),
  status: z.string(),
  name: z.string(),
  data: z.object({ lines: z.number() }),
  version: z.number().int(),
  note: z.string().optional(),
  alertKey: z.string().optional(),
});
type Summary = z.input<typeof summarySchema>;

const summaries = (name = 'OrderSummary') =>
  new ReadModel({
    client,
    table,
    name,
    schema: summarySchema,
    key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
    indexes: { byStatus: { name: 'gsi1', pk: { field: 'gsi1pk', composite: ['status'] }, sk: { field: 'gsi1sk', composite: ['orderId'] } } },
    hidden: ['alertKey'],
  });

const readings = () =>
  new ReadModel({
    client,
    table,
    name: 'ZoneReading',
    schema: z.object({ sensorId: z.string(), zone: z.string(), day: z.string(), readings: z.number(), assignee: z.string().optional() }),
    key: { pk: { field: 'pk', composite: ['sensorId'] }, sk: { field: 'sk', composite: ['zone', 'day'] } },
    indexes: { byAssignee: { name: 'gsi1', pk: { field: 'gsi1pk', composite: ['assignee'] }, sk: { field: 'gsi1sk', composite: ['sensorId'] } } },
  });

let Summaries: ReturnType<typeof summaries>;
let Readings: ReturnType<typeof readings>;

beforeAll(async () => {
  Summaries = summaries();
  Readings = readings();
  await client.send(new CreateTableCommand(readModelTableDefinition(table, [Summaries, Readings])));
});
afterAll(() => client.destroy());

const summary = (orderId: string, overrides: Partial<Summary> = {}): Summary => ({
  orderId,
  customer: 'ada',
  status: 'placed',
  name: `order ${orderId}`,
  data: { lines: 1 },
  version: 1,
  ...overrides,
});

async function rawRow(key: Record<string, string>) {
  const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: marshall(key), ConsistentRead: true }));
  return Item === undefined ? undefined : unmarshall(Item);
}

/** Resolves once the clock has moved past `time`, so two writes get different timestamps. */
async function clockPast(time: string): Promise<void> {
  while (new Date().toISOString() <= time) await new Promise((resolve) => setImmediate(resolve));
}

test('put and get a row: reserved words as field names, timestamps, consistent reads', async () => {
  await Summaries.put(summary('rm-1', { note: 'gift' }));
  const first = await Summaries.get({ orderId: 'rm-1' }, { consistent: true });
  expect(first).toEqual({ ...summary('rm-1', { note: 'gift' }), createdAt: expect.any(String), updatedAt: expect.any(String) });
  expect(first?.updatedAt).toBe(first?.createdAt);

  await clockPast(first?.updatedAt as string);
  const beforeSecond = new Date().toISOString();
  await Summaries.put(summary('rm-1', { status: 'shipped', version: 2 }));
  const second = await Summaries.get({ orderId: 'rm-1' });
  expect(second).toMatchObject({ status: 'shipped', version: 2, createdAt: first?.createdAt });
  expect((second?.updatedAt ?? '') >= beforeSecond).toBe(true);
  expect(second).not.toHaveProperty('note'); // a put writes the whole row: absent optional fields go
  expect(await Summaries.get({ orderId: 'rm-missing' })).toBeUndefined();

  requests.reset();
  await Summaries.get({ orderId: 'rm-1' });
  await Summaries.get({ orderId: 'rm-1' }, { consistent: true });
  expect(requests.count('GetItemCommand')).toBe(2);
});

test('index key attributes are recomputed on every write', async () => {
  await Summaries.put(summary('rm-2'));
  expect(await rawRow({ pk: 'OrderSummary#rm-2', sk: 'OrderSummary' })).toMatchObject({
    gsi1pk: 'OrderSummary#placed',
    gsi1sk: 'OrderSummary#rm-2',
    _rm: 'OrderSummary',
  });
  const inStatus = async (status: string) => (await Summaries.query('byStatus', { status })).items.map((row) => row.orderId);
  expect(await inStatus('placed')).toContain('rm-2');

  await Summaries.put(summary('rm-2', { status: 'packed', version: 2 }));
  expect((await rawRow({ pk: 'OrderSummary#rm-2', sk: 'OrderSummary' }))?.['gsi1pk']).toBe('OrderSummary#packed');
  expect(await inStatus('placed')).not.toContain('rm-2');
  expect(await inStatus('packed')).toEqual(['rm-2']);
});

test('a row without an index composite stays out of that index, and leaves it when the field goes', async () => {
  await Readings.put({ sensorId: 's-1', zone: 'north', day: '2024-01-01', readings: 3, assignee: 'kim' });
  expect((await Readings.query('byAssignee', { assignee: 'kim' })).items).toHaveLength(1);
  await Readings.put({ sensorId: 's-1', zone: 'north', day: '2024-01-01', readings: 4 });
  const raw = await rawRow({ pk: 'ZoneReading#s-1', sk: 'ZoneReading#north#2024-01-01' });
  expect(raw).not.toHaveProperty('gsi1pk');
  expect(raw).not.toHaveProperty('assignee');
  expect((await Readings.query('byAssignee', { assignee: 'kim' })).items).toEqual([]);
});

test('query pages with limit and cursor over many rows', async () => {
  const ids = range(1, 45).map((n) => `bulk-${String(n).padStart(3, '0')}`);
  await Promise.all(ids.map((id) => Summaries.put(summary(id, { status: 'bulk' }))));

  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await Summaries.query('byStatus', { status: 'bulk' }, { limit: 10, ...(cursor === undefined ? {} : { cursor }) });
    expect(page.items.length).toBeLessThanOrEqual(10);
    seen.push(...page.items.map((row) => row.orderId));
    cursor = page.cursor;
    pages += 1;
  } while (cursor !== undefined);
  expect(seen).toEqual(ids); // in index sort key order, each once
  expect(pages).toBeGreaterThanOrEqual(5);

  const last = await Summaries.query('byStatus', { status: 'bulk' }, { limit: 3, descending: true });
  expect(last.items.map((row) => row.orderId)).toEqual(ids.slice(-3).reverse());
  const all = await Summaries.query('byStatus', { status: 'bulk' });
  expect(all.items).toHaveLength(45);
  expect(all.cursor).toBeUndefined();
});

test('primary-key query with a leading part of the sort key', async () => {
  for (const zone of ['east', 'west']) {
    for (const day of ['2024-01-01', '2024-01-02', '2024-01-03']) {
      await Readings.put({ sensorId: 's-2', zone, day, readings: day.length });
    }
  }
  await Readings.put({ sensorId: 's-3', zone: 'east', day: '2024-01-01', readings: 1 });

  const east = await Readings.query('primary', { sensorId: 's-2', zone: 'east' }, { consistent: true });
  expect(east.items.map((row) => `${row.zone} ${row.day}`)).toEqual(['east 2024-01-01', 'east 2024-01-02', 'east 2024-01-03']);
  const one = await Readings.query('primary', { sensorId: 's-2', zone: 'west', day: '2024-01-02' });
  expect(one.items.map((row) => `${row.zone} ${row.day}`)).toEqual(['west 2024-01-02']);
  expect((await Readings.query('primary', { sensorId: 's-2' })).items).toHaveLength(6);
  // a zone that is a prefix of another one does not match it
  await Readings.put({ sensorId: 's-2', zone: 'eastern', day: '2024-01-01', readings: 1 });
  expect((await Readings.query('primary', { sensorId: 's-2', zone: 'east' })).items).toHaveLength(3);
  // the sort key's fields must be given from the left (the compiler says so too)
  // @ts-expect-error `day` without `zone` is not a leading part of the sort key
  await expect(Readings.query('primary', { sensorId: 's-2', day: '2024-01-01' })).rejects.toBeInstanceOf(ValidationError);
});

test('hidden fields are left out unless asked for', async () => {
  await Summaries.put(summary('rm-hidden', { status: 'hidden-test', alertKey: 'pager-7' }));
  expect(await Summaries.get({ orderId: 'rm-hidden' })).not.toHaveProperty('alertKey');
  expect(await Summaries.get({ orderId: 'rm-hidden' }, { includeHidden: true })).toMatchObject({ alertKey: 'pager-7' });
  const [row] = (await Summaries.query('byStatus', { status: 'hidden-test' })).items;
  expect(row).not.toHaveProperty('alertKey');
  const [full] = (await Summaries.query('byStatus', { status: 'hidden-test' }, { includeHidden: true })).items;
  expect(full).toMatchObject({ alertKey: 'pager-7' });
});

test('two models share a table and its index without seeing each other', async () => {
  const Archived = summaries('ArchivedSummary');
  await Archived.put(summary('rm-1', { status: 'placed', customer: 'archived' }));
  await Summaries.put(summary('rm-shared', { status: 'placed' }));
  expect((await Archived.query('byStatus', { status: 'placed' })).items.map((row) => row.customer)).toEqual(['archived']);
  expect((await Summaries.query('byStatus', { status: 'placed' })).items.map((row) => row.customer)).not.toContain('archived');
  expect(await Archived.get({ orderId: 'rm-1' })).toMatchObject({ customer: 'archived' });
  expect(await Summaries.get({ orderId: 'rm-1' })).toMatchObject({ customer: 'ada' });
});

describe('bad input', () => {
  test('an invalid row is a ValidationError naming the field, and nothing is written', async () => {
    requests.reset();
    const attempt = Summaries.put({ ...summary('rm-bad'), version: 'two' } as never);
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    await expect(attempt).rejects.toThrow(/version/);
    await expect(attempt).rejects.toMatchObject({ code: 'store.validation', issues: [expect.objectContaining({ path: ['version'] })] });
    await expect(Summaries.put({ orderId: 'rm-bad' } as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(Summaries.put(summary('rm-bad', { orderId: 'a#b' }))).resolves.toBeUndefined(); // one composite: '#' is fine
    expect(requests.count('UpdateItemCommand')).toBe(1);
    expect(await Summaries.get({ orderId: 'rm-bad' })).toBeUndefined();
  });

  test('a "#" in one of several composites is refused', async () => {
    await expect(Readings.put({ sensorId: 's-9', zone: 'a#b', day: 'd', readings: 1 })).rejects.toBeInstanceOf(ValidationError);
    // @ts-expect-error the key is sensorId, zone and day
    await expect(Readings.get({ sensorId: 's-9' })).rejects.toMatchObject({ code: 'store.validation' });
  });

  test('queries with an unknown index, a bad limit or a foreign cursor are refused', async () => {
    // @ts-expect-error no such index
    await expect(Summaries.query('byCustomer', { customer: 'ada' })).rejects.toBeInstanceOf(ValidationError);
    await expect(Summaries.query('byStatus', { status: 'placed' }, { limit: 0 })).rejects.toBeInstanceOf(ValidationError);
    await expect(Summaries.query('byStatus', { status: 'placed' }, { cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'store.validation' });
    // @ts-expect-error the index's partition key field is missing
    await expect(Summaries.query('byStatus', {})).rejects.toBeInstanceOf(ValidationError);
  });

  test('a stored row that no longer matches the schema is a DecodeError', async () => {
    await client.send(
      new PutItemCommand({ TableName: table, Item: marshall({ pk: 'OrderSummary#rm-old', sk: 'OrderSummary', orderId: 'rm-old', status: 7 }) }),
    );
    await expect(Summaries.get({ orderId: 'rm-old' })).rejects.toBeInstanceOf(DecodeError);
  });
});

describe('configuration', () => {
  const valid = () => ({
    client,
    table,
    name: 'Conf',
    schema: z.object({ id: z.string(), kind: z.string() }),
    key: { pk: { field: 'pk', composite: ['id'] }, sk: { field: 'sk', composite: [] } },
  });
  test.each<[string, Record<string, unknown>]>([
    ['a short table name', { table: 'ab' }],
    ['a name with "#"', { name: 'a#b' }],
    ['a schema that is not a zod object', { schema: z.string() }],
    ['a key attribute that is also a field', { key: { pk: { field: 'id', composite: ['id'] } } }],
    ['a composite that is not a field', { key: { pk: { field: 'pk', composite: ['missing'] } } }],
    ['an index without a DynamoDB name', { indexes: { byKind: { name: '', pk: { field: 'gsi1pk', composite: ['kind'] } } } }],
    ['a field dynafold keeps', { schema: z.object({ id: z.string(), createdAt: z.string() }) }],
    ['a hidden field that is not in the schema', { hidden: ['secret'] }],
  ])('%s is a ConfigurationError', (_, override) => {
    expect(() => new ReadModel({ ...valid(), ...override } as never)).toThrow(ConfigurationError);
  });

  test('readModelTableDefinition declares the key and every index once', () => {
    expect(readModelTableDefinition('views', [Summaries, Readings])).toEqual({
      TableName: 'views',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      GlobalSecondaryIndexes: [
        {
          IndexName: 'gsi1',
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'gsi1pk', AttributeType: 'S' },
        { AttributeName: 'gsi1sk', AttributeType: 'S' },
      ],
    });
  });

  test('readModelTableDefinition refuses models that cannot share a table', () => {
    const other = (key: object, indexes: object = {}) => new ReadModel({ ...valid(), key, indexes } as never);
    expect(() => readModelTableDefinition('views', [])).toThrow(ConfigurationError);
    expect(() => readModelTableDefinition('views', [Summaries, other({ pk: { field: 'id2', composite: ['id'] } })])).toThrow(ConfigurationError);
    expect(() => readModelTableDefinition('views', [Summaries, other({ pk: { field: 'pk', composite: ['id'] } })])).toThrow(ConfigurationError);
    expect(() =>
      readModelTableDefinition('views', [
        Summaries,
        other(
          { pk: { field: 'pk', composite: ['id'] }, sk: { field: 'sk', composite: [] } },
          { byKind: { name: 'gsi1', pk: { field: 'kindpk', composite: ['kind'] } } },
        ),
      ]),
    ).toThrow(ConfigurationError);
  });
});
