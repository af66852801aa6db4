import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { z } from 'zod';
import { ConcurrencyError, ConfigurationError, EventStream, IdempotencyMismatchError, eventsTableDefinition } from 'dynafold';
import { canonicalJson, requestHash } from '../../lib/store/append/idempotency';
import { createTestTable, testClient } from '../support/dynamo';
import { emptyOrder, evolveOrder, orderStream, type OrderState } from '../support/orders';

const client = testClient();
let table: string;
let Orders: ReturnType<typeof orderStream>;

beforeAll(async () => {
  table = (await createTestTable(client, eventsTableDefinition, 'idem')).name;
  Orders = orderStream(client, table);
});
afterAll(() => client.destroy());

let sequence = 0;
const freshId = () => ({ orderId: `i-${++sequence}-${Date.now().toString(36)}` });
const placed = (customer: string) => [{ type: 'OrderPlaced' as const, data: { customer } }];

async function sentinel(streamName: string, streamId: string, key: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await client.send(
    new GetItemCommand({ TableName: table, Key: { pk: { S: `${streamName}#${streamId}` }, sk: { S: `i#${key}` } }, ConsistentRead: true }),
  );
  return Item === undefined ? undefined : unmarshall(Item);
}

describe('a key is bound to its request', () => {
  test('the same key and payload return the first result; metadata and key order do not count', async () => {
    const Notes = new EventStream({
      client,
      table,
      name: 'Note',
      streamId: ['noteId'],
      events: { Tagged: z.object({ tags: z.record(z.string(), z.number()) }) },
    });
    const first = await Notes.append('n-1', [{ type: 'Tagged', data: { tags: { a: 1, b: 2 } } }], {
      idempotencyKey: 'tag',
      metadata: { traceId: 't-1' },
    });
    const again = await Notes.append('n-1', [{ type: 'Tagged', data: { tags: { b: 2, a: 1 } } }], {
      idempotencyKey: 'tag',
      metadata: { traceId: 't-2' },
    });
    expect(again).toEqual(first);
    expect(await Notes.version('n-1')).toBe(1);
    expect((await sentinel('Note', 'n-1', 'tag'))?.['requestHash']).toMatch(/^[0-9a-f]{64}$/);
  });

  test.each([
    ['other data', placed('bo'), { expectedVersion: 0 }],
    ['another event type', [{ type: 'OrderShipped' as const, data: {} }], { expectedVersion: 0 }],
    ['more events', [...placed('al'), { type: 'OrderShipped' as const, data: {} }], { expectedVersion: 0 }],
    ['no expectedVersion', placed('al'), {}],
  ])('the same key with %s fails with IdempotencyMismatchError and writes nothing', async (_what, events, options) => {
    const id = freshId();
    const first = await Orders.append(id, placed('al'), { expectedVersion: 0, idempotencyKey: 'k' });
    const attempt = Orders.append(id, events, { ...options, idempotencyKey: 'k' });
    await expect(attempt).rejects.toBeInstanceOf(IdempotencyMismatchError);
    await expect(attempt).rejects.toMatchObject({
      code: 'store.idempotencyMismatch',
      status: 422,
      streamName: 'Order',
      streamId: id.orderId,
      idempotencyKey: 'k',
      appended: { fromVersion: 1, toVersion: 1 },
    });
    expect(await Orders.read(id)).toEqual(first.events);
  });

  test('a sentinel written before requests were hashed matches any request, as before', async () => {
    const id = freshId();
    const first = await Orders.append(id, placed('old'), { idempotencyKey: 'legacy' });
    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { pk: { S: `Order#${id.orderId}` }, sk: { S: 'i#legacy' } },
        UpdateExpression: 'REMOVE requestHash',
      }),
    );
    await expect(Orders.append(id, placed('new'), { idempotencyKey: 'legacy' })).resolves.toEqual(first);
    expect(await Orders.version(id)).toBe(1);
  });

  test('an explicit request replaces the events as what the key stands for', async () => {
    const id = freshId();
    const first = await Orders.append(id, placed('cy'), { idempotencyKey: 'r', request: { body: 'place cy' } });
    await expect(Orders.append(id, placed('cy-renamed'), { idempotencyKey: 'r', request: { body: 'place cy' } })).resolves.toEqual(first);
    await expect(Orders.append(id, placed('cy'), { idempotencyKey: 'r', request: { body: 'other' } })).rejects.toBeInstanceOf(
      IdempotencyMismatchError,
    );
  });

  test('execute binds its key to `request`: repeats match, another request fails', async () => {
    const id = freshId();
    await Orders.append(id, placed('di'));
    const add = (sku: string) => ({
      initial: emptyOrder,
      evolve: evolveOrder,
      decide: () => [{ type: 'ItemAdded' as const, data: { sku, price: 1 } }],
    });
    const first = await Orders.execute<OrderState>(id, add('a'), { idempotencyKey: 'cmd', request: { sku: 'a' } });
    const again = await Orders.execute<OrderState>(id, add('a'), { idempotencyKey: 'cmd', request: { sku: 'a' } });
    expect(again.events).toEqual(first.events);
    await expect(Orders.execute<OrderState>(id, add('b'), { idempotencyKey: 'cmd', request: { sku: 'b' } })).rejects.toBeInstanceOf(
      IdempotencyMismatchError,
    );
    expect(await Orders.version(id)).toBe(2);
  });
});

test('writers racing with one key and different payloads: one payload wins, no other writer succeeds silently', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom('a', 'b'), { minLength: 2, maxLength: 6 }), fc.boolean(), async (payloads, withExpectedVersion) => {
      const id = freshId();
      const settled = await Promise.allSettled(
        payloads.map((customer) =>
          Orders.append(id, placed(customer), { idempotencyKey: 'race', ...(withExpectedVersion ? { expectedVersion: 0 } : {}) }),
        ),
      );
      const stored = await Orders.read(id);
      expect(stored).toHaveLength(1);
      const winner = (stored[0]?.data as { customer: string }).customer;
      settled.forEach((outcome, index) => {
        if (payloads[index] === winner) {
          // the winner's payload: the first result, whoever wrote it
          expect(outcome).toEqual({ status: 'fulfilled', value: { version: 1, events: stored } });
        } else {
          expect(outcome.status).toBe('rejected');
          const reason = (outcome as PromiseRejectedResult).reason as unknown;
          expect(reason instanceof IdempotencyMismatchError || reason instanceof ConcurrencyError).toBe(true);
        }
      });
    }),
    { numRuns: 12 },
  );
});

describe('sentinels expire with idempotencyTtl', () => {
  test('the sentinel carries its expiry on the TTL attribute, in epoch seconds', async () => {
    const Expiring = orderStream(client, table, { name: 'Expiring' });
    const WithTtl = new EventStream({ ...streamOptions('Expiring'), idempotencyTtl: { durationMs: 3_600_000 } });
    const OwnAttribute = new EventStream({ ...streamOptions('Expiring'), idempotencyTtl: { durationMs: 60_000, attribute: 'expiresAt' } });
    const before = Math.floor(Date.now() / 1000);
    await WithTtl.append('e-1', placed('ed'), { idempotencyKey: 'k1' });
    await OwnAttribute.append('e-1', [{ type: 'OrderShipped', data: {} }], { idempotencyKey: 'k2' });
    await Expiring.append('e-1', [{ type: 'OrderShipped', data: {} }], { idempotencyKey: 'k3' });
    const after = Math.ceil(Date.now() / 1000);
    const ttl = Number((await sentinel('Expiring', 'e-1', 'k1'))?.['ttl']);
    expect(ttl).toBeGreaterThanOrEqual(before + 3600);
    expect(ttl).toBeLessThanOrEqual(after + 3600);
    expect(Number((await sentinel('Expiring', 'e-1', 'k2'))?.['expiresAt'])).toBeGreaterThanOrEqual(before + 60);
    expect(await sentinel('Expiring', 'e-1', 'k3')).not.toHaveProperty('ttl');
    expect(WithTtl.sentinelTtl).toEqual({ durationMs: 3_600_000, attribute: 'ttl' });
  });

  test('an expired sentinel DynamoDB has not deleted yet no longer holds its key', async () => {
    const Expiring = new EventStream({ ...streamOptions('Expiring'), idempotencyTtl: { durationMs: 60_000 } });
    const first = await Expiring.append('e-2', placed('fa'), { idempotencyKey: 'k' });
    await expect(Expiring.append('e-2', placed('fa'), { idempotencyKey: 'k' })).resolves.toEqual(first);
    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { pk: { S: 'Expiring#e-2' }, sk: { S: 'i#k' } },
        UpdateExpression: 'SET #ttl = :past',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':past': { N: String(Math.floor(Date.now() / 1000) - 10) } },
      }),
    );
    const second = await Expiring.append('e-2', placed('fa'), { idempotencyKey: 'k' });
    expect(second.version).toBe(2);
    expect(await sentinel('Expiring', 'e-2', 'k')).toMatchObject({ fromVersion: 2, toVersion: 2 });
  });

  test('a key is held for durationMs to the millisecond, not rounded to whole seconds', async () => {
    // Only Date is faked, so the clock the append reads can be set; the SDK's timers run as ever.
    jest.useFakeTimers({
      doNotFake: [
        'setTimeout',
        'clearTimeout',
        'setInterval',
        'clearInterval',
        'setImmediate',
        'clearImmediate',
        'nextTick',
        'queueMicrotask',
        'hrtime',
        'performance',
      ],
    });
    try {
      const Expiring = new EventStream({ ...streamOptions('Expiring'), idempotencyTtl: { durationMs: 1_000 } });
      // Half a second into a second: rounding the expiry up and the clock down held the key for 2.5 s.
      const start = Math.floor(Date.now() / 1000) * 1000 + 500;
      jest.setSystemTime(start);
      const first = await Expiring.append('e-3', placed('ms'), { idempotencyKey: 'k' });
      jest.setSystemTime(start + 999);
      await expect(Expiring.append('e-3', placed('ms'), { idempotencyKey: 'k' })).resolves.toEqual(first);
      jest.setSystemTime(start + 1_000);
      const again = await Expiring.append('e-3', placed('ms'), { idempotencyKey: 'k' });
      expect(again.version).toBe(2);
      expect(await sentinel('Expiring', 'e-3', 'k')).toMatchObject({
        fromVersion: 2,
        expiresAtMs: start + 2_000,
        ttl: Math.ceil((start + 2_000) / 1000),
      });
    } finally {
      jest.useRealTimers();
    }
  });

  test.each([
    [{ durationMs: 10 }, /idempotencyTtl.durationMs/],
    [{ durationMs: 60_000, attribute: 'pk' }, /idempotencyTtl.attribute/],
    [{ durationMs: 60_000, attribute: 'requestHash' }, /idempotencyTtl.attribute/],
  ])('%p is refused at construction', (idempotencyTtl, message) => {
    expect(() => new EventStream({ ...streamOptions('Expiring'), idempotencyTtl })).toThrow(ConfigurationError);
    expect(() => new EventStream({ ...streamOptions('Expiring'), idempotencyTtl })).toThrow(message);
  });
});

describe('the request hash', () => {
  test('is canonical: object keys in any order give one hash, arrays keep their order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    const event = (data: unknown) => ({ type: 'T', data, stored: { json: '', compressed: false } });
    expect(requestHash({ events: [event({ x: 1, y: 2 })] })).toBe(requestHash({ events: [event({ y: 2, x: 1 })] }));
    expect(requestHash({ events: [event([1, 2])] })).not.toBe(requestHash({ events: [event([2, 1])] }));
    expect(requestHash({ events: [event({})], expectedVersion: 0 })).not.toBe(requestHash({ events: [event({})] }));
  });
});

function streamOptions(name: string) {
  return { client, table, name, streamId: ['orderId'], events: { OrderPlaced: z.object({ customer: z.string() }), OrderShipped: z.object({}) } };
}
