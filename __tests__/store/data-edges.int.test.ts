import { z } from 'zod';
import { DataLimits, EventStream, ReadModel, ValidationError, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { countRequests } from '../support/requests';

// Data the store used to accept but could not keep, or accepted or refused depending on its size.
const client = testClient();
const requests = countRequests(client);
afterAll(() => client.destroy());

let table: string;
let viewsTable: string;
let sequence = 0;
const freshId = () => ({ id: `d-${++sequence}` });

beforeAll(async () => {
  table = (await createTestTable(client, eventsTableDefinition, 'data-edges')).name;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [keyedModel('Any', name)]), 'data-views')).name;
});

function stream<T extends z.ZodType>(name: string, schema: T, compression?: false) {
  return new EventStream({ client, table, name, streamId: ['id'], events: { Happened: schema }, ...(compression === false ? { compression } : {}) });
}

async function refusedBeforeSending(attempt: () => Promise<unknown>, message: RegExp): Promise<void> {
  requests.reset();
  const outcome = attempt();
  await expect(outcome).rejects.toBeInstanceOf(ValidationError);
  await expect(outcome).rejects.toThrow(message);
  expect([...requests.counts.keys()].filter((command) => command !== 'QueryCommand' && command !== 'GetItemCommand')).toEqual([]);
}

describe('event data must survive JSON: refused at append with a ValidationError that says why', () => {
  test.each([
    ['a Date', z.object({ at: z.date() }), { at: new Date('2026-01-01T00:00:00Z') }, /data\.at is a Date/],
    ['a Map', z.object({ tags: z.map(z.string(), z.number()) }), { tags: new Map([['a', 1]]) }, /data\.tags is a Map/],
    ['a Set', z.object({ tags: z.set(z.string()) }), { tags: new Set(['a']) }, /data\.tags is a Set/],
    ['a bigint', z.object({ n: z.bigint() }), { n: 12n }, /data\.n is a bigint/],
  ])('%s', async (_what, schema, data, message) => {
    const events = stream(`Json${++sequence}`, schema);
    const id = freshId();
    await refusedBeforeSending(() => events.append(id, [{ type: 'Happened', data } as never]), message);
    await expect(events.read(id)).resolves.toEqual([]);
  });

  test('snapshot states must survive JSON, and versions are integers from 0', async () => {
    const events = stream('Snap', z.object({}));
    const id = freshId();
    for (const state of [undefined, 12n, { at: new Date() }]) {
      await refusedBeforeSending(() => events.saveSnapshot(id, { version: 1, state }), /JSON|state/);
    }
    for (const version of [-1, 1.5, Number.NaN]) {
      await refusedBeforeSending(() => events.saveSnapshot(id, { version, state: {} }), /version/);
    }
    await expect(events.loadSnapshot(id)).resolves.toBeUndefined();
  });
});

describe('data DynamoDB cannot hold as a map gets one answer whatever its size', () => {
  const odd = [
    ['a number past 2^53', { n: 2 ** 60 }],
    ['a huge number', { n: 1e200 }],
    ['a tiny number', { n: 1e-200 }],
    ['an empty field name', { '': 1 }],
  ] as const;

  test.each(odd)('%s is stored and read back, small or large', async (_what, data) => {
    const events = stream(`Odd${++sequence}`, z.record(z.string(), z.unknown()));
    const id = freshId();
    const small = { ...data };
    const large = { ...data, padding: 'x'.repeat(10_000) };
    const appended = await events.append(id, [
      { type: 'Happened', data: small },
      { type: 'Happened', data: large },
    ]);
    expect(appended.events.map((event) => event.data)).toEqual([small, large]);
    expect((await events.read(id)).map((event) => event.data)).toEqual([small, large]);
  });

  test.each(odd)('%s is refused before sending when compression is off, small or large', async (_what, data) => {
    const events = stream(`PlainOdd${++sequence}`, z.record(z.string(), z.unknown()), false);
    for (const value of [{ ...data }, { ...data, padding: 'x'.repeat(10_000) }]) {
      await refusedBeforeSending(() => events.append(freshId(), [{ type: 'Happened', data: value }]), /can't be stored as a DynamoDB map/);
    }
  });

  test('metadata that DynamoDB cannot hold is refused before sending', async () => {
    const events = stream('Meta', z.object({}));
    await refusedBeforeSending(() => events.append(freshId(), [{ type: 'Happened', data: {} }], { metadata: { n: 2 ** 60 } }), /metadata\.n/);
  });
});

describe('nesting', () => {
  /** `n` objects inside one another around a number. */
  const nested = (n: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { leaf: 1 };
    for (let level = 1; level < n; level++) value = { a: value };
    return value;
  };

  test("data at DynamoDB's limit (31 maps in the attribute) is stored as a map; one more is stored compressed, or refused with compression off", async () => {
    const plain = stream('PlainDeep', z.record(z.string(), z.unknown()), false);
    const id = freshId();
    await plain.append(id, [{ type: 'Happened', data: nested(31) }]);
    expect((await plain.read(id)).map((event) => event.data)).toEqual([nested(31)]);
    await refusedBeforeSending(() => plain.append(freshId(), [{ type: 'Happened', data: nested(32) }]), /nested deeper than DynamoDB's 32 levels/);
    const compressed = stream('CompressedDeep', z.record(z.string(), z.unknown()));
    const other = freshId();
    await compressed.append(other, [{ type: 'Happened', data: nested(32) }]);
    expect((await compressed.read(other)).map((event) => event.data)).toEqual([nested(32)]);
  });

  test('data and snapshot state nested past DataLimits.jsonDepth (100) are a ValidationError before sending, however deep; 100 levels are kept', async () => {
    const events = stream('Deep', z.record(z.string(), z.unknown()));
    const id = freshId();
    await events.append(id, [{ type: 'Happened', data: nested(DataLimits.jsonDepth) }]);
    expect((await events.read(id)).map((event) => event.data)).toEqual([nested(DataLimits.jsonDepth)]);
    // 2,000 levels is a 10 KB body that JSON.parse reads; 100,000 is past what JSON.stringify can write.
    for (const depth of [DataLimits.jsonDepth + 1, 2_000, 100_000]) {
      await refusedBeforeSending(() => events.append(freshId(), [{ type: 'Happened', data: nested(depth) }]), /nested deeper than 100 levels/);
      await refusedBeforeSending(() => events.saveSnapshot(id, { version: 1, state: nested(depth) }), /nested deeper than 100 levels/);
    }
  });

  test("a row field at DynamoDB's limit (31 maps) is stored; one more is a ValidationError", async () => {
    const rows = new ReadModel({
      client,
      table: viewsTable,
      name: 'DeepRow',
      schema: z.object({ p: z.string(), s: z.string(), value: z.unknown() }),
      key: { pk: { field: 'pk', composite: ['p'] }, sk: { field: 'sk', composite: ['s'] } },
    });
    await rows.put({ p: 'p', s: 'ok', value: nested(31) });
    expect(await rows.get({ p: 'p', s: 'ok' }, { consistent: true })).toMatchObject({ value: nested(31) });
    await expect(rows.put({ p: 'p', s: 'no', value: nested(32) })).rejects.toThrow(/nested deeper than DynamoDB's 32 levels/);
  });
});

describe('lengths are checked in bytes, before sending', () => {
  test('an idempotency key of 341 × € (1,023 bytes) is refused', async () => {
    const events = stream('Keys', z.object({}));
    await refusedBeforeSending(
      () => events.append(freshId(), [{ type: 'Happened', data: {} }], { idempotencyKey: '€'.repeat(341) }),
      /idempotencyKey.*bytes/,
    );
    await expect(events.append(freshId(), [{ type: 'Happened', data: {} }], { idempotencyKey: 'k'.repeat(513) })).resolves.toMatchObject({
      version: 1,
    });
  });

  test('a stream id too long for a partition key is a ValidationError', async () => {
    const events = stream('LongIds', z.object({}));
    await refusedBeforeSending(() => events.append({ id: 'x'.repeat(2100) }, [{ type: 'Happened', data: {} }]), /bytes/);
    await expect(events.read({ id: 'x'.repeat(2100) })).rejects.toBeInstanceOf(ValidationError);
  });

  test('read-model key values too long for their key attribute are a ValidationError', async () => {
    const model = keyedModel('LongKeys');
    await expect(model.put({ p: 'x'.repeat(2100), s: 's', n: 1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(model.put({ p: 'p', s: 's'.repeat(1100), n: 1 })).rejects.toThrow(/bytes/);
  });
});

function keyedModel(name: string, tableName = viewsTable) {
  return new ReadModel({
    client,
    table: tableName,
    name,
    schema: z.object({ p: z.string(), s: z.string(), n: z.number() }),
    key: { pk: { field: 'pk', composite: ['p'] }, sk: { field: 'sk', composite: ['s'] } },
    indexes: { bySort: { name: 'gsi1', pk: { field: 'gsi1pk', composite: ['p'] }, sk: { field: 'gsi1sk', composite: ['s'] } } },
  });
}

describe('rows', () => {
  test('a query on a full sort key that ends in "#" returns that row only, on the table and on an index', async () => {
    const model = keyedModel('Hash');
    for (const s of ['a#', 'a##', 'a#b', 'a']) await model.put({ p: 'p', s, n: s.length });
    expect((await model.query('primary', { p: 'p', s: 'a#' }, { consistent: true })).items.map((row) => row.s)).toEqual(['a#']);
    expect((await model.query('bySort', { p: 'p', s: 'a#' })).items.map((row) => row.s)).toEqual(['a#']);
    expect((await model.query('primary', { p: 'p' }, { consistent: true })).items.map((row) => row.s).sort()).toEqual(['a', 'a#', 'a##', 'a#b']);
  });

  test('a row DynamoDB cannot hold is a ValidationError naming the field, not a failed request', async () => {
    const model = keyedModel('OddRow');
    await expect(model.put({ p: 'p', s: 's', n: 2 ** 60 })).rejects.toBeInstanceOf(ValidationError);
    await expect(model.put({ p: 'p', s: 's', n: 1e-200 })).rejects.toThrow(/\bn is 1e-200/);
  });
});
