import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { ConfigurationError, type DynafoldError, EventStream, TransactionLimitError, ValidationError, eventsTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { orderEventSchemas, orderStream, range } from '../support/orders';
import { countRequests } from '../support/requests';

const client = testClient();
const requests = countRequests(client);
let table: string;
let Orders: ReturnType<typeof orderStream>;
let PlainOrders: ReturnType<typeof orderStream>;

beforeAll(async () => {
  ({ name: table } = await createTestTable(client, eventsTableDefinition, 'invalid'));
  Orders = orderStream(client, table);
  PlainOrders = orderStream(client, table, { name: 'PlainOrder', compression: false });
});
afterAll(() => client.destroy());

/** The sort keys of a partition's items, in order. */
async function commitKeys(partitionKey: string): Promise<string[]> {
  const page = await client.send(
    new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: partitionKey } } }),
  );
  return (page.Items ?? []).map((item) => item['sk']?.S ?? '');
}

let sequence = 0;
const freshId = () => ({ orderId: `v-${++sequence}` });

/** Runs `attempt`, expects it to fail with `type` and `code`, and checks that nothing was written. */
async function rejectsWithoutWriting<E extends DynafoldError>(
  stream: ReturnType<typeof orderStream>,
  id: { orderId: string },
  attempt: () => Promise<unknown>,
  type: new (...args: never[]) => E,
  code: string,
): Promise<E> {
  const before = await stream.read(id);
  requests.reset();
  const outcome = attempt();
  await expect(outcome).rejects.toBeInstanceOf(type);
  await expect(outcome).rejects.toMatchObject({ code });
  expect(requests.count('TransactWriteItemsCommand')).toBe(0);
  expect(requests.count('PutItemCommand')).toBe(0);
  expect(await stream.read(id)).toEqual(before);
  return (await outcome.catch((error: unknown) => error)) as E;
}

describe('events that fail validation', () => {
  test('an unknown event type names the type and the known ones', async () => {
    const id = freshId();
    const error = await rejectsWithoutWriting(
      Orders,
      id,
      () => Orders.append(id, [{ type: 'OrderCancelled', data: {} } as never], { expectedVersion: 0 }),
      ValidationError,
      'store.validation',
    );
    expect(error.message).toContain('"OrderCancelled"');
    expect(error.message).toContain('OrderPlaced, ItemAdded, OrderShipped');
    expect(error.issues).toEqual([{ path: [0, 'type'], message: 'unknown event type' }]);
  });

  test('zod-invalid data names the event type and the field path', async () => {
    const id = freshId();
    await Orders.append(id, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
    const error = await rejectsWithoutWriting(
      Orders,
      id,
      () =>
        Orders.append(id, [
          { type: 'ItemAdded', data: { sku: 'ok', price: 1 } },
          { type: 'ItemAdded', data: { sku: 'bad', price: 'free' } } as never,
        ]),
      ValidationError,
      'store.validation',
    );
    expect(error.message).toContain('Event 1 (ItemAdded)');
    expect(error.message).toContain('data.price');
    expect(error.issues).toEqual([expect.objectContaining({ path: [1, 'data', 'price'] })]);
    expect(error.cause).toBeInstanceOf(z.ZodError);
  });

  test('metadata that is not an object is refused', async () => {
    const id = freshId();
    await rejectsWithoutWriting(
      Orders,
      id,
      () => Orders.append(id, [{ type: 'OrderShipped', data: {}, metadata: 'urgent' } as never]),
      ValidationError,
      'store.validation',
    );
  });

  test('an empty append is refused', async () => {
    const id = freshId();
    await rejectsWithoutWriting(Orders, id, () => Orders.append(id, [], { expectedVersion: 0 }), ValidationError, 'store.validation');
  });

  test.each([[-1], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY], ['1' as unknown as number]])(
    'expectedVersion %p is refused',
    async (expectedVersion) => {
      const id = freshId();
      const error = await rejectsWithoutWriting(
        Orders,
        id,
        () => Orders.append(id, [{ type: 'OrderShipped', data: {} }], { expectedVersion }),
        ValidationError,
        'store.validation',
      );
      expect(error.message).toContain('expectedVersion');
    },
  );

  test.each([[''], ['k'.repeat(1001)], ['€'.repeat(341)]])('idempotency key %p is refused', async (idempotencyKey) => {
    const id = freshId();
    await rejectsWithoutWriting(
      Orders,
      id,
      () => Orders.append(id, [{ type: 'OrderShipped', data: {} }], { idempotencyKey }),
      ValidationError,
      'store.validation',
    );
  });

  test('retry.attempts below 1 is refused', async () => {
    const id = freshId();
    await rejectsWithoutWriting(
      Orders,
      id,
      () => Orders.append(id, [{ type: 'OrderShipped', data: {} }], { retry: { attempts: 0 } }),
      ValidationError,
      'store.validation',
    );
  });

  test('read ranges must be integers', async () => {
    const id = freshId();
    await expect(Orders.read(id, { fromVersion: Number.NaN })).rejects.toBeInstanceOf(ValidationError);
    await expect(Orders.read(id, { toVersion: 1.5 })).rejects.toMatchObject({ code: 'store.validation' });
    await expect(Orders.readFrom(id, -2)).rejects.toMatchObject({ code: 'store.validation' });
  });
});

describe('transaction limits, checked before anything is sent', () => {
  const item = (n: number) => ({ type: 'ItemAdded' as const, data: { sku: `s-${n}`, price: n } });

  test('an append of any number of small events is one commit, written by one PutItem', async () => {
    const id = freshId();
    requests.reset();
    const result = await Orders.append(id, range(1, 250).map(item), { expectedVersion: 0 });
    expect(result.version).toBe(250);
    expect(requests.count('PutItemCommand')).toBe(1);
    expect(requests.count('TransactWriteItemsCommand')).toBe(0);
    await Orders.append(id, range(1, 150).map(item), { expectedVersion: 250, idempotencyKey: 'k-150' });
    expect((await Orders.read(id)).map((event) => event.version)).toEqual(range(1, 400));
  });

  test('events too large together for one item are cut into commits as full as items can be, written in one transaction', async () => {
    const id = freshId();
    const big = (n: number) => ({ type: 'OrderPlaced' as const, data: { customer: String(n % 10).repeat(150 * 1024) } });
    requests.reset();
    const result = await PlainOrders.append(id, range(1, 5).map(big), { expectedVersion: 0 });
    expect(result.version).toBe(5);
    expect(requests.count('TransactWriteItemsCommand')).toBe(1);
    expect(requests.count('PutItemCommand')).toBe(0);
    // 150 KB each: two to an item, so three commits, from versions 1, 3 and 5.
    expect(await commitKeys(`PlainOrder#${id.orderId}`)).toEqual(['e#0000000001', 'e#0000000003', 'e#0000000005']);
    const read = await PlainOrders.read(id);
    expect(read.map((event) => event.version)).toEqual([1, 2, 3, 4, 5]);
    expect(read.map((event) => (event.type === 'OrderPlaced' ? event.data.customer.length : 0))).toEqual(range(1, 5).map(() => 150 * 1024));
    expect((await PlainOrders.read(id, { fromVersion: 2, toVersion: 4 })).map((event) => event.version)).toEqual([2, 3, 4]);
  });

  test('an item over 400 KB with compression off', async () => {
    const id = freshId();
    const error = await rejectsWithoutWriting(
      PlainOrders,
      id,
      () => PlainOrders.append(id, [{ type: 'OrderPlaced', data: { customer: 'x'.repeat(401 * 1024) } }]),
      TransactionLimitError,
      'store.transactionLimit',
    );
    expect(error.limit).toBe('itemSize');
    expect(error.message).toContain('compression is off');
  });

  test('an item just under the estimate is accepted by DynamoDB', async () => {
    const id = freshId();
    const result = await PlainOrders.append(id, [{ type: 'OrderPlaced', data: { customer: 'x'.repeat(399 * 1024) } }]);
    expect(result.version).toBe(1);
    const [stored] = await PlainOrders.read(id);
    expect(stored?.type === 'OrderPlaced' && stored.data.customer.length).toBe(399 * 1024);
  });

  test('a transaction over 4 MB', async () => {
    const id = freshId();
    const big = (n: number) => ({ type: 'OrderPlaced' as const, data: { customer: String(n % 10).repeat(350 * 1024) } });
    const error = await rejectsWithoutWriting(
      PlainOrders,
      id,
      () => PlainOrders.append(id, range(1, 12).map(big), { expectedVersion: 0 }),
      TransactionLimitError,
      'store.transactionLimit',
    );
    expect(error.limit).toBe('transactionSize');
    expect(error.message).toContain('4 MB');
  });

  test('incompressible data over 400 KB even compressed', async () => {
    const id = freshId();
    const noise = Buffer.from(Array.from({ length: 600 * 1024 }, () => Math.floor(Math.random() * 256))).toString('base64');
    const error = await rejectsWithoutWriting(
      Orders,
      id,
      () => Orders.append(id, [{ type: 'OrderPlaced', data: { customer: noise } }]),
      TransactionLimitError,
      'store.transactionLimit',
    );
    expect(error.message).toContain('even compressed');
  });
});

describe('stream ids', () => {
  const Tenants = () => new EventStream({ client, table, name: 'TenantOrder', streamId: ['tenant', 'orderId'], events: orderEventSchemas });

  test('a "#" in a multi-field stream id is ambiguous and refused', async () => {
    const stream = Tenants();
    const attempt = stream.append({ tenant: 'acme#eu', orderId: 'o-1' }, [{ type: 'OrderShipped', data: {} }]);
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    await expect(attempt).rejects.toMatchObject({ code: 'store.validation', issues: [{ path: ['tenant'] }] });
    expect(() => stream.parseStreamId('acme#eu#o-1')).toThrow(ValidationError);
    expect(() => stream.parseStreamId('acme')).toThrow(ValidationError);
    expect(await stream.read({ tenant: 'acme', orderId: 'eu#o-1' }).catch((error: unknown) => error)).toBeInstanceOf(ValidationError);
    expect(await stream.read('acme#eu')).toEqual([]);
  });

  test('composite ids are joined with "#" and split back', async () => {
    const stream = Tenants();
    const result = await stream.append({ tenant: 'acme', orderId: 'o-2' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
    expect(result.events[0]?.streamId).toBe('acme#o-2');
    expect(stream.parseStreamId('acme#o-2')).toEqual({ tenant: 'acme', orderId: 'o-2' });
    // Each parse is an object of the caller's: changing one changes no later parse.
    Object.assign(stream.parseStreamId('acme#o-2'), { tenant: 'changed' });
    expect(stream.parseStreamId('acme#o-2')).toEqual({ tenant: 'acme', orderId: 'o-2' });
    expect(await stream.read('acme#o-2')).toEqual(result.events);
    // a single-field id may contain "#"
    const single = await Orders.append({ orderId: 'a#b' }, [{ type: 'OrderShipped', data: {} }]);
    expect(single.events[0]?.streamId).toBe('a#b');
    expect(Orders.parseStreamId('a#b')).toEqual({ orderId: 'a#b' });
  });

  test('missing or empty id fields are refused', async () => {
    const stream = Tenants();
    await expect(stream.append({ tenant: 'acme' } as never, [{ type: 'OrderShipped', data: {} }])).rejects.toMatchObject({
      code: 'store.validation',
      issues: [{ path: ['orderId'] }],
    });
    await expect(Orders.append({ orderId: '' }, [{ type: 'OrderShipped', data: {} }])).rejects.toBeInstanceOf(ValidationError);
    await expect(Orders.version(null as never)).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('stream configuration', () => {
  const valid = () => ({ client, table, name: 'Conf', streamId: ['id'], events: orderEventSchemas });
  test.each<[string, Record<string, unknown>]>([
    ['no client', { client: undefined }],
    ['a short table name', { table: 'ab' }],
    ['a name with "#"', { name: 'Or#der' }],
    ['an empty name', { name: '' }],
    ['no stream id fields', { streamId: [] }],
    ['duplicate stream id fields', { streamId: ['id', 'id'] }],
    ['no events', { events: {} }],
    ['an event schema that is not zod', { events: { Placed: { parse: () => 1 } } }],
    ['an unknown compression', { compression: { algorithm: 'zstd' } }],
    ['a negative threshold', { compression: { thresholdBytes: -1 } }],
  ])('%s is a ConfigurationError', (_, override) => {
    expect(() => new EventStream({ ...valid(), ...override } as never)).toThrow(ConfigurationError);
    try {
      new EventStream({ ...valid(), ...override } as never);
    } catch (error) {
      expect(error).toMatchObject({ code: 'configuration' });
    }
  });
});
