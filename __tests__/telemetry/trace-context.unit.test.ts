/**
 * The trace context a commit stores is read back by the one decode every reader goes through, handed to
 * each of its events, and never fails a read: a damaged one is dropped (or, well-formed but not a W3C
 * traceparent, carried and left unlinked).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { linksOf } from '../../lib/telemetry/links';
import { storedTraceContext, traceContextBytes } from '../../lib/telemetry/trace-context';
import { z } from 'zod';
import { EventStream, olderVersion } from 'dynafold';
import { compress } from '../../lib/dynamo';
import { orderStream } from '../support/orders';

const client = new DynamoDBClient({ region: 'local', endpoint: 'http://127.0.0.1:1' });
afterAll(() => client.destroy());
const stream = orderStream(client, 'events');

const commit = (tc: unknown) => ({
  pk: 'Order#o-1',
  sk: 'e#0000000001',
  _df: 'Order',
  ts: Date.parse('2026-01-01T00:00:00.000Z'),
  count: 2,
  events: [
    { type: 'OrderPlaced', data: { customer: 'ada' } },
    { type: 'ItemAdded', data: { sku: 'pen', price: 2 } },
  ],
  ...(tc === undefined ? {} : { tc }),
});

const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

test('a trace context is stored as the bytes of its fields, then its tracestate', () => {
  expect(Buffer.from(traceContextBytes({ traceparent }) ?? []).toString('hex')).toBe('004bf92f3577b34da6a3ce929d0e0e473600f067aa0ba902b701');
  expect(traceContextBytes({ traceparent, tracestate: 'vendor=a' })?.length).toBe(26 + 'vendor=a'.length);
  expect(traceContextBytes({ traceparent: 'not one' })).toBeUndefined();
  expect(storedTraceContext(traceContextBytes({ traceparent, tracestate: 'vendor=a,other=b' }))).toEqual({
    traceparent,
    tracestate: 'vendor=a,other=b',
  });
});

test('a commit’s trace context goes to each of its events, tracestate included', () => {
  const events = stream.decodeCommit(commit(traceContextBytes({ traceparent, tracestate: 'vendor=a' })));
  expect(events.map((event) => event.trace)).toEqual([
    { traceparent, tracestate: 'vendor=a' },
    { traceparent, tracestate: 'vendor=a' },
  ]);
});

test('a commit without one (every item written before, or with no span active) decodes as before', () => {
  expect(stream.decodeCommit(commit(undefined)).map((event) => 'trace' in event)).toEqual([false, false]);
});

test.each([['garbage'], [42], [null], [{ tracestate: 'vendor=a' }], [{ traceparent: 7 }]])(
  'a damaged context (%j) is dropped, the events decode',
  (tc) => {
    const events = stream.decodeCommit(commit(tc));
    expect(events.map((event) => [event.version, event.trace])).toEqual([
      [1, undefined],
      [2, undefined],
    ]);
    expect(storedTraceContext(tc)).toBeUndefined();
  },
);

test('links: one per append (per stream instance), its versions sorted; a context that is no W3C traceparent is not linked', () => {
  const event = (streamId: string, version: number, trace?: { traceparent: string }) => ({ streamName: 'Order', streamId, version, trace });
  const other = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
  const links = linksOf([
    event('o-1', 3, { traceparent }),
    event('o-1', 2, { traceparent }),
    event('o-1', 3, { traceparent }),
    event('o-2', 1, { traceparent }),
    event('o-1', 4, { traceparent: other }),
    event('o-1', 5, { traceparent: '00-zz-zz-01' }),
    event('o-1', 6, { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }),
    event('o-1', 7),
  ]);
  expect(links.map((link) => [link.trace.traceparent, link.attributes])).toEqual([
    [traceparent, { 'dynafold.stream.name': 'Order', 'dynafold.stream.id': 'o-1', 'dynafold.event.versions': [2, 3] }],
    [traceparent, { 'dynafold.stream.name': 'Order', 'dynafold.stream.id': 'o-2', 'dynafold.event.versions': [1] }],
    [other, { 'dynafold.stream.name': 'Order', 'dynafold.stream.id': 'o-1', 'dynafold.event.versions': [4] }],
  ]);
  // Contexts linked already (by an earlier call on the same span) are left out.
  expect(
    linksOf([event('o-1', 8, { traceparent }), event('o-1', 9, { traceparent: other })], new Set(links.slice(0, 1).map((link) => link.key))),
  ).toEqual([
    expect.objectContaining({ trace: { traceparent: other }, attributes: expect.objectContaining({ 'dynafold.event.versions': [9] }) as unknown }),
  ]);
});

test('compressed data and older versions of a type keep their commit’s context', () => {
  const versioned = new EventStream({
    client,
    table: 'events',
    name: 'Order',
    streamId: ['orderId'],
    events: { ItemAdded: z.object({ sku: z.string(), priceCents: z.number() }) },
    versions: {
      ItemAdded: {
        older: [olderVersion(1, z.object({ sku: z.string(), price: z.number() }), (v1) => ({ sku: v1.sku, priceCents: v1.price * 100 }))],
      },
    },
  });
  const tc = traceContextBytes({ traceparent });
  const item = {
    ...commit(tc),
    events: [
      // Stored at version 1 (upcast on read), then compressed at today's version 2.
      { type: 'ItemAdded', data: { sku: 'pen', price: 2 } },
      { type: 'ItemAdded', tv: 2, enc: 'gzip', data: compress(JSON.stringify({ sku: 'ink', priceCents: 300 }), 'gzip') },
    ],
  };
  expect(versioned.decodeCommit(item).map((event) => [event.data, event.trace])).toEqual([
    [{ sku: 'pen', priceCents: 200 }, { traceparent }],
    [{ sku: 'ink', priceCents: 300 }, { traceparent }],
  ]);
});
