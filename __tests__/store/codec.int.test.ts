import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { ConfigurationError, DecodeError, EventStream, decoder, eventsTableDefinition, type StreamEvent } from 'dynafold';
import { eventFilterPattern } from 'dynafold/lambda';
import { createTestTable, testClient } from '../support/dynamo';
import { orderStream } from '../support/orders';
import { lambdaImage, readStreamRecords, type SdkImage } from '../support/stream-images';

const client = testClient();
let table: string;
let streamArn: string;

const documentEvents = {
  Written: z.object({
    title: z.string(),
    body: z.string(),
    tags: z.array(z.string()),
    meta: z.object({ words: z.number(), draft: z.boolean(), editor: z.string().nullable() }),
  }),
  Erased: z.object({ reason: z.string().optional() }),
};
const documentStream = (name: string, compression: ConstructorParameters<typeof EventStream>[0]['compression']) =>
  new EventStream({ client, table, name, streamId: ['docId'], events: documentEvents, ...(compression === undefined ? {} : { compression }) });

let Orders: ReturnType<typeof orderStream>;
let GzipDocs: ReturnType<typeof documentStream>;
let BrotliDocs: ReturnType<typeof documentStream>;
let PlainDocs: ReturnType<typeof documentStream>;

const text = (size: number) => Array.from({ length: size }, (_, i) => 'lorem ipsum dolor sit amet '[i % 27]).join('');
const written = (size: number) => ({
  type: 'Written' as const,
  data: { title: 'On folds', body: text(size), tags: ['a', 'b'], meta: { words: size / 6, draft: false, editor: null } },
});

beforeAll(async () => {
  const created = await createTestTable(client, eventsTableDefinition, 'codec');
  table = created.name;
  streamArn = created.streamArn as string;
  Orders = orderStream(client, table);
  GzipDocs = documentStream('GzipDoc', { algorithm: 'gzip', thresholdBytes: 1024 });
  BrotliDocs = documentStream('BrotliDoc', { algorithm: 'brotli', thresholdBytes: 1024 });
  PlainDocs = documentStream('PlainDoc', false);
});
afterAll(() => client.destroy());

async function rawItem(streamName: string, streamId: string, version: number) {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: table,
      Key: marshall({ pk: `${streamName}#${streamId}`, sk: `e#${String(version).padStart(10, '0')}` }),
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** The stored attributes of event `index` of the commit from version `first`: the item itself for a commit of one. */
async function storedEvent(streamName: string, streamId: string, first: number, index: number) {
  const item = await rawItem(streamName, streamId, first);
  const list = item?.['events']?.L;
  return list === undefined ? item : list[index]?.M;
}

describe('round trip through the table and its stream', () => {
  const appended: StreamEvent[] = [];

  beforeAll(async () => {
    const order = await Orders.append(
      { orderId: 'rt-1' },
      [
        { type: 'OrderPlaced', data: { customer: 'ada' }, metadata: { correlationId: 'c-1' } },
        { type: 'ItemAdded', data: { sku: 'tea', price: 4.2 } },
        { type: 'OrderShipped', data: {} },
      ],
      { idempotencyKey: 'rt-1-placed' },
    );
    appended.push(...order.events);
    for (const stream of [GzipDocs, BrotliDocs, PlainDocs]) {
      const doc = await stream.append({ docId: 'd-1' }, [written(600), written(50_000), { type: 'Erased', data: {} }]);
      appended.push(...doc.events);
    }
    await Orders.saveSnapshot({ orderId: 'rt-1' }, { version: 3, state: { shipped: true } });
    await client.send(new PutItemCommand({ TableName: table, Item: marshall({ pk: 'foreign#1', sk: 'x', type: 'OrderPlaced', version: 1 }) }));
  });

  test('every event type reads back as appended', async () => {
    for (const stream of [Orders, GzipDocs, BrotliDocs, PlainDocs] as const) {
      const events = await (stream as EventStream).read(stream === Orders ? 'rt-1' : 'd-1');
      expect(events).toEqual(appended.filter((event) => event.streamName === stream.name));
      expect(events).toHaveLength(3);
    }
    expect(appended[0]?.metadata).toEqual({ correlationId: 'c-1' });
    expect(appended[1]?.data).toEqual({ sku: 'tea', price: 4.2 });
    expect(Date.parse(appended[0]?.timestamp ?? '')).not.toBeNaN();
  });

  test('an append is one item, a commit: its keys, marker, append time in epoch ms, append id, count and events; the id and versions only in its keys', async () => {
    const [placed, added] = appended;
    const commit = await rawItem('Order', 'rt-1', 1);
    expect(Object.keys(commit ?? {}).sort()).toEqual(['_df', 'ap', 'count', 'events', 'pk', 'sk', 'ts']);
    // The append's id: 8 base64url characters, so a retried Put knows the commit as its own.
    expect(commit?.['ap']?.S).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(commit).toEqual({
      pk: { S: 'Order#rt-1' },
      sk: { S: 'e#0000000001' },
      _df: { S: 'Order' },
      ap: { S: commit?.['ap']?.S },
      ts: { N: String(Date.parse(added?.timestamp ?? '')) },
      count: { N: '3' },
      events: {
        L: [
          { M: { type: { S: 'OrderPlaced' }, data: { M: { customer: { S: 'ada' } } }, metadata: { M: { correlationId: { S: 'c-1' } } } } },
          { M: { type: { S: 'ItemAdded' }, data: { M: { sku: { S: 'tea' }, price: { N: '4.2' } } } } },
          { M: { type: { S: 'OrderShipped' }, data: { M: {} } } },
        ],
      },
    });
    // No item per event: the commit is the partition's only event item.
    expect(await rawItem('Order', 'rt-1', 2)).toBeUndefined();
    // One time for the whole append, to the millisecond, as the appended events report it.
    expect(placed?.timestamp).toBe(added?.timestamp);

    // A commit of one event holds it at the top level, as every item before commits did.
    const Singles = orderStream(client, table, { name: 'SingleOrder' });
    const single = await Singles.append({ orderId: 'rt-single' }, [{ type: 'ItemAdded', data: { sku: 'tea', price: 4.2 } }]);
    expect(await rawItem('SingleOrder', 'rt-single', 1)).toEqual({
      pk: { S: 'SingleOrder#rt-single' },
      sk: { S: 'e#0000000001' },
      _df: { S: 'SingleOrder' },
      ap: { S: expect.stringMatching(/^[A-Za-z0-9_-]{8}$/) },
      type: { S: 'ItemAdded' },
      ts: { N: String(Date.parse(single.events[0]?.timestamp ?? '')) },
      data: { M: { sku: { S: 'tea' }, price: { N: '4.2' } } },
    });
  });

  test('large data is stored compressed as binary, small data as a plain map, event by event in a commit', async () => {
    const small = await storedEvent('GzipDoc', 'd-1', 1, 0);
    expect(small?.['data']?.M).toBeDefined();
    expect(small?.['enc']).toBeUndefined();
    for (const [name, algorithm] of [
      ['GzipDoc', 'gzip'],
      ['BrotliDoc', 'brotli'],
    ]) {
      const large = await storedEvent(name as string, 'd-1', 1, 1);
      expect(large?.['enc']).toEqual({ S: algorithm });
      expect(large?.['data']?.B).toBeInstanceOf(Uint8Array);
      expect(large?.['data']?.B?.byteLength).toBeLessThan(5_000);
    }
    const plain = await storedEvent('PlainDoc', 'd-1', 1, 1);
    expect(plain?.['data']?.M?.['body']?.S).toHaveLength(50_000);
    expect(plain?.['enc']).toBeUndefined();
  });

  test('the data at the threshold stays plain, one byte more is compressed', async () => {
    const Tiny = documentStream('TinyDoc', { thresholdBytes: 20 });
    const exact = { reason: 'x'.repeat(20 - '{"reason":""}'.length) };
    expect(JSON.stringify(exact)).toHaveLength(20);
    await Tiny.append({ docId: 't' }, [
      { type: 'Erased', data: exact },
      { type: 'Erased', data: { reason: `${exact.reason}y` } },
    ]);
    expect((await storedEvent('TinyDoc', 't', 1, 0))?.['enc']).toBeUndefined();
    expect((await storedEvent('TinyDoc', 't', 1, 1))?.['enc']).toEqual({ S: 'gzip' });
    expect((await Tiny.read('t')).map((event) => event.data)).toEqual([exact, { reason: `${exact.reason}y` }]);
  });

  test('SDK-shaped and Lambda-shaped images of the same items decode to equal events', async () => {
    const decode = decoder({ Order: Orders, Gzip: GzipDocs, Brotli: BrotliDocs, Plain: PlainDocs });
    const inserts = (await readStreamRecords(streamArn)).filter((record) => record.eventName === 'INSERT');
    const mine = new Set(['Order', 'GzipDoc', 'BrotliDoc', 'PlainDoc', undefined]);
    const images = inserts.map((record) => record.dynamodb?.NewImage as SdkImage).filter((image) => mine.has(image['_df']?.S));
    // The events each commit holds (a commit of one holds its event at the top level).
    const storedEvents = (image: SdkImage) => (image['events']?.L ?? [{ M: image }]).map((stored) => stored.M as SdkImage);
    const compressed = images.flatMap(storedEvents).filter((stored) => stored['enc'] !== undefined);
    expect(compressed.map((stored) => [stored['enc']?.S, stored['data']?.B instanceof Uint8Array])).toEqual([
      ['gzip', true],
      ['brotli', true],
    ]);

    const fromSdk = images.map((image) => decode(image));
    const fromLambda = images.map((image) => decode(lambdaImage(image)));
    const gzipped = lambdaImage(images.find((image) => image['_df']?.S === 'GzipDoc') as SdkImage);
    expect(JSON.stringify(gzipped)).toContain('"B":"');
    expect(fromLambda).toEqual(fromSdk);

    const events = fromSdk.filter((decoded) => decoded !== undefined).flatMap((decoded): ReadonlyArray<StreamEvent> => decoded.events);
    const byPosition = (a: StreamEvent, b: StreamEvent) => `${a.streamName}${a.version}`.localeCompare(`${b.streamName}${b.version}`);
    expect([...events].sort(byPosition)).toEqual([...appended].sort(byPosition));
    // the decoder names the stream by its key in the map
    const first = fromSdk.find((decoded) => decoded?.events[0]?.streamName === 'BrotliDoc');
    expect(first?.stream).toBe('Brotli');

    // snapshot, idempotency sentinel and the foreign item are no events
    const others = images.filter((_, index) => fromSdk[index] === undefined);
    expect(others.map((image) => image['sk']?.S).sort()).toEqual(['e$snapshot#default', 'i#rt-1-placed', 'x']);
  });

  test('empty maps and lists survive the stream image (DynamoDB Local writes an empty map as {})', async () => {
    const Shapes = new EventStream({
      client,
      table,
      name: 'Shape',
      streamId: ['shapeId'],
      events: {
        Shaped: z.object({
          empty: z.object({}),
          nested: z.object({ inner: z.record(z.string(), z.number()) }),
          list: z.array(z.object({})),
          none: z.array(z.string()),
        }),
      },
    });
    const data = { empty: {}, nested: { inner: {} }, list: [{}, {}], none: [] };
    const { events } = await Shapes.append({ shapeId: 's-1' }, [{ type: 'Shaped', data }]);
    const record = (await readStreamRecords(streamArn)).find((r) => r.dynamodb?.NewImage?.['_df']?.S === 'Shape');
    const image = record?.dynamodb?.NewImage as SdkImage;
    const decode = decoder({ Shapes });
    expect(decode(image)?.events).toEqual(events);
    expect(decode(lambdaImage(image))?.events).toEqual(events);
    expect(decode(image)?.events[0]?.data).toEqual(data);
  });

  test('a decoder ignores streams it was not given', async () => {
    const decode = decoder({ Order: Orders });
    const image = (await readStreamRecords(streamArn)).find((record) => record.dynamodb?.NewImage?.['_df']?.S === 'GzipDoc')?.dynamodb?.NewImage;
    expect(image).toBeDefined();
    expect(decode(image as SdkImage)).toBeUndefined();
  });
});

describe('broken event items', () => {
  const base = { pk: 'Order#b-1', sk: 'e#0000000001', _df: 'Order', ts: Date.parse('2024-01-01T00:00:00.000Z') };
  const decode = () => decoder({ Order: Orders });
  const shipped = { type: 'OrderShipped', data: {} };

  test.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown type', { ...base, type: 'OrderLost', data: {} }, /unknown type "OrderLost"/],
    ['data its schema refuses', { ...base, type: 'ItemAdded', data: { sku: 'x', price: 'ten' } }, /data\.price/],
    ['a sort key holding no version', { ...base, sk: 'e#1', type: 'OrderShipped', data: {} }, /sort key is not "e#" and a version/],
    [
      'a partition key of another stream',
      { ...base, pk: 'Invoice#b-1', type: 'OrderShipped', data: {} },
      /partition key does not start with "Order#"/,
    ],
    ['a 0.2 version its sort key disagrees with', { ...base, version: 2, type: 'OrderShipped', data: {} }, /not written by an append/],
    ['a type version beyond a safe integer', { ...base, type: 'OrderShipped', data: {}, tv: 2n ** 60n }, /type version 1152921504606846976/],
    [
      'a compression attribute beyond a safe integer',
      { ...base, type: 'OrderPlaced', data: gzipSync('{}'), enc: 2n ** 60n },
      /'enc' holds 1152921504606846976/,
    ],
    ['corrupt compressed data', { ...base, type: 'OrderPlaced', data: new Uint8Array([1, 2, 3, 4]), enc: 'gzip' }, /does not decompress/],
    ['compressed data that is not binary', { ...base, type: 'OrderPlaced', data: { customer: 'x' }, enc: 'gzip' }, /not binary/],
    ['an unknown compression', { ...base, type: 'OrderPlaced', data: gzipSync('{"customer":"x"}'), enc: 'zstd' }, /zstd/],
    ['compressed data of the wrong shape', { ...base, type: 'OrderPlaced', data: gzipSync('{"buyer":"x"}'), enc: 'gzip' }, /data\.customer/],
    ['a commit whose count is 1', { ...base, count: 1, events: [{ type: 'OrderShipped', data: {} }] }, /event count 'count' 1/],
    ['a commit whose count is no integer', { ...base, count: 2.5, events: [] }, /event count 'count' 2.5/],
    [
      'a commit counting more events than it holds',
      { ...base, count: 3, events: [shipped, shipped] },
      /counts 3 events but its 'events' holds a list of 2/,
    ],
    ['a commit whose events are no list', { ...base, count: 2, events: 'two' }, /counts 2 events but its 'events' holds string/],
    ['a commit whose event is no map', { ...base, count: 2, events: [shipped, 'shipped'] }, /one map per event/],
    ['a list of events without a count', { ...base, ...shipped, events: [shipped, shipped] }, /a list of events but no count/],
    [
      'a broken event in a commit',
      { ...base, count: 2, events: [shipped, { type: 'OrderLost', data: {} }] },
      /event 2 of 2 \(version 2\) of.*unknown type "OrderLost"|e#0000000001 of stream Order, event 2 of 2 \(version 2\) has the unknown type/,
    ],
    [
      'a commit without types (an older reader sees no type)',
      { ...base, count: 2, events: [{ data: {} }, shipped] },
      /event 1 of 2 \(version 1\) lacks a string type/,
    ],
  ])('%s is a DecodeError', (_, item, message) => {
    const image = marshall(item, { removeUndefinedValues: true });
    expect(() => decode()(image)).toThrow(DecodeError);
    expect(() => decode()(image)).toThrow(message);
    expect(() => decode()(lambdaImage(image as SdkImage))).toThrow(DecodeError);
    try {
      decode()(image);
    } catch (error) {
      expect(error).toMatchObject({ code: 'store.decode', streamName: 'Order' });
    }
  });

  test('a compressed item from another writer decodes', () => {
    const image = marshall({ ...base, type: 'OrderPlaced', data: gzipSync('{"customer":"zoe"}'), enc: 'gzip' });
    expect(decode()(image)?.events).toMatchObject([{ type: 'OrderPlaced', data: { customer: 'zoe' }, version: 1, streamId: 'b-1' }]);
  });

  test('an image that is not an object is a DecodeError', () => {
    expect(() => decode()(null as never)).toThrow(DecodeError);
  });
});

describe('decoder configuration and filter patterns', () => {
  test('two streams with one marker are a ConfigurationError', () => {
    const again = orderStream(client, 'other-table');
    expect(() => decoder({ Order: Orders, Legacy: again })).toThrow(ConfigurationError);
    expect(() => decoder({ Order: Orders, Legacy: again })).toThrow(/"Order"/);
    expect(() => decoder({ Order: Orders, Same: Orders })).not.toThrow();
  });

  test('eventFilterPattern keeps only INSERTs of the given streams', () => {
    expect(eventFilterPattern([Orders, GzipDocs, Orders])).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { _df: { S: ['Order', 'GzipDoc'] } } },
    });
    expect(JSON.parse(JSON.stringify(eventFilterPattern([BrotliDocs])))).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { _df: { S: ['BrotliDoc'] } } },
    });
  });
});
