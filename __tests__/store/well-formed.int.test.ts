/**
 * Ill-formed UTF-16 (a lone surrogate) is refused wherever it would reach DynamoDB: DynamoDB stores text
 * as UTF-8, where every lone surrogate becomes U+FFFD, so '\uD800' and '\uDBFF' would be one stream id,
 * one key, one idempotency key, and event data would not read back as it was appended.
 */
import { z } from 'zod';
import { ConfigurationError, EventStream, Projection, ReadModel, ValidationError, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { orderEventSchemas, orderStream } from '../support/orders';
import { countRequests } from '../support/requests';

const client = testClient();
const requests = countRequests(client);
afterAll(() => client.destroy());

let table: string;
let viewsTable: string;
const rowSchema = z.object({ tenant: z.string(), text: z.string() });
const rows = (tableName: string, name = 'Note') =>
  new ReadModel({ client, table: tableName, name, schema: rowSchema, key: { pk: { field: 'pk', composite: ['tenant'] } } });

beforeAll(async () => {
  table = (await createTestTable(client, eventsTableDefinition, 'utf16-events')).name;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [rows(name)]), 'utf16-views')).name;
});

// Lone high and low surrogates, at the start, the end and inside: each ill-formed.
const illFormed = ['\uD800', '\uDBFF', 'a\uDC00', '\uD83Dx'];

async function refusedUnsent(attempt: () => Promise<unknown>, message: RegExp): Promise<void> {
  requests.reset();
  const outcome = attempt();
  await expect(outcome).rejects.toBeInstanceOf(ValidationError);
  await expect(outcome).rejects.toThrow(message);
  expect([...requests.counts.keys()]).toEqual([]);
}

test.each(illFormed)('a stream id %j is a ValidationError, as an object or a string; a surrogate pair is fine', async (id) => {
  const orders = orderStream(client, table);
  const placed = { type: 'OrderPlaced' as const, data: { customer: 'ada' } };
  await refusedUnsent(() => orders.append({ orderId: id }, [placed]), /lone surrogate/);
  await refusedUnsent(() => orders.append(id, [placed]), /lone surrogate/);
  await refusedUnsent(() => orders.read({ orderId: id }), /lone surrogate/);
  const tenants = new EventStream({ client, table, name: 'TenantOrder', streamId: ['tenant', 'orderId'], events: orderEventSchemas });
  await refusedUnsent(() => tenants.append({ tenant: 'acme', orderId: id }, [placed]), /`orderId` holds a lone surrogate/);
  const paired = `😀${illFormed.indexOf(id)}`;
  const emoji = await orders.append({ orderId: paired }, [placed]);
  expect(emoji.events[0]?.streamId).toBe(paired);
  expect(await orders.read({ orderId: paired })).toEqual(emoji.events);
});

test('two stream ids that differ only in their lone surrogate are never one stream', async () => {
  const orders = orderStream(client, table);
  for (const id of ['\uD800', '\uDBFF']) {
    await expect(orders.append({ orderId: id }, [{ type: 'OrderPlaced', data: { customer: id } }], { expectedVersion: 0 })).rejects.toBeInstanceOf(
      ValidationError,
    );
  }
  expect(await orders.read({ orderId: '\uFFFD' })).toEqual([]);
});

test.each(illFormed)('an idempotency key %j is a ValidationError', async (key) => {
  const orders = orderStream(client, table);
  await refusedUnsent(() => orders.append({ orderId: 'idem' }, [{ type: 'OrderShipped', data: {} }], { idempotencyKey: key }), /idempotencyKey/);
});

test.each(illFormed)('a read-model key value %j is a ValidationError on put, get and query', async (tenant) => {
  const notes = rows(viewsTable);
  await refusedUnsent(() => notes.put({ tenant, text: 'x' }), /tenant holds a lone surrogate/);
  await refusedUnsent(() => notes.get({ tenant }), /lone surrogate/);
  await refusedUnsent(() => notes.query('primary', { tenant }), /lone surrogate/);
});

test.each(illFormed)('event data, metadata and row fields holding %j are refused rather than stored as U+FFFD', async (text) => {
  const orders = orderStream(client, table);
  await refusedUnsent(
    () => orders.append({ orderId: 'data' }, [{ type: 'OrderPlaced', data: { customer: text } }]),
    /data\.customer holds a lone surrogate/,
  );
  // Compressed data would keep it (JSON escapes it), but the same data gets one answer whatever its size.
  const large = { type: 'ItemAdded' as const, data: { sku: `${'x'.repeat(10_000)}${text}`, price: 1 } };
  await refusedUnsent(() => orders.append({ orderId: 'data' }, [large]), /data\.sku holds a lone surrogate/);
  await refusedUnsent(() => orders.append({ orderId: 'data' }, [{ type: 'OrderShipped', data: {} }], { metadata: { [text]: 1 } }), /field name/);
  await refusedUnsent(() => rows(viewsTable).put({ tenant: 't', text }), /text holds a lone surrogate/);
  await refusedUnsent(() => orders.saveSnapshot({ orderId: 'data' }, { version: 1, state: { note: text } }), /lone surrogate/);
});

test('names with a lone surrogate are a ConfigurationError at construction', () => {
  expect(() => new EventStream({ client, table, name: 'Order\uD800', streamId: ['orderId'], events: orderEventSchemas })).toThrow(ConfigurationError);
  expect(() => rows(viewsTable, 'Note\uDBFF')).toThrow(ConfigurationError);
  const orders = orderStream(client, table);
  expect(
    () =>
      new Projection({
        name: 'Totals\uD800',
        stream: orders,
        readModel: rows(viewsTable),
        key: () => ({ tenant: 't' }),
        initial: () => ({ tenant: 't', text: '' }),
        evolve: (state) => state,
        checkpoint: 'version',
      }),
  ).toThrow(ConfigurationError);
});
