/**
 * A table written by 0.2, whose event items repeat the stream id and version beside the keys and store
 * the append time as an ISO string: written here as 0.2 wrote them (raw PutItems of its exact item
 * shape), then read, loaded, decoded, projected and appended after, as a table upgraded in place is.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { gzipSync } from 'node:zlib';
import { ConcurrencyError, DecodeError, decoder, eventsTableDefinition, readModelTableDefinition, type StreamEvent } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { emptyOrder, evolveOrder, orderStream, type OrderEvent } from '../support/orders';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../support/stream-records';
import { lambdaImage, type SdkImage } from '../support/stream-images';

const client = testClient();
let table: string;
let streamArn: string;
let viewsTable: string;
let orders: ReturnType<typeof orderStream>;

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'layout02');
  table = events.name;
  streamArn = events.streamArn as string;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'layout02views')).name;
  orders = orderStream(client, table);
});
afterAll(() => client.destroy());

type NewOrderEvent = { type: 'OrderPlaced'; data: { customer: string } } | { type: 'ItemAdded'; data: { sku: string; price: number } };

const sortKey = (version: number) => `e#${String(version).padStart(10, '0')}`;
const timeOf = (version: number) => `2025-06-01T10:00:0${version}.000Z`;

/**
 * The item 0.2's `toEventItem` built for version `version` (data compressed with gzip when `gzip`): the
 * keys, the marker, `streamId`, `version`, `type`, an ISO `timestamp`, `data` (`enc` when compressed) and
 * `metadata` when given.
 */
function itemOf02(streamId: string, version: number, event: NewOrderEvent, options: { gzip?: boolean; metadata?: Record<string, unknown> } = {}) {
  return {
    pk: `Order#${streamId}`,
    sk: sortKey(version),
    _df: 'Order',
    streamId,
    version,
    type: event.type,
    timestamp: timeOf(version),
    ...(options.gzip === true ? { data: gzipSync(JSON.stringify(event.data)), enc: 'gzip' } : { data: event.data }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
  };
}

/** Writes versions 1..3 of `streamId` as 0.2 did (the third compressed), and returns the events they hold. */
async function writeAs02(streamId: string): Promise<StreamEvent[]> {
  const events: NewOrderEvent[] = [
    { type: 'OrderPlaced', data: { customer: 'ada' } },
    { type: 'ItemAdded', data: { sku: 'a', price: 3 } },
    { type: 'ItemAdded', data: { sku: 'b', price: 4.5 } },
  ];
  const metadata = { by: 'a 0.2 service' };
  for (const [index, event] of events.entries()) {
    const version = index + 1;
    const item = itemOf02(streamId, version, event, { gzip: version === 3, ...(version === 1 ? { metadata } : {}) });
    await client.send(new PutItemCommand({ TableName: table, Item: marshall(item), ConditionExpression: 'attribute_not_exists(pk)' }));
  }
  return events.map((event, index) => ({
    streamName: 'Order',
    streamId,
    version: index + 1,
    ...event,
    ...(index === 0 ? { metadata } : {}),
    timestamp: timeOf(index + 1),
  }));
}

async function rawItem(streamId: string, version: number): Promise<Record<string, unknown>> {
  const { Item } = await client.send(
    new GetItemCommand({ TableName: table, Key: marshall({ pk: `Order#${streamId}`, sk: sortKey(version) }), ConsistentRead: true }),
  );
  if (Item === undefined) throw new Error(`no item Order#${streamId} v${version}`);
  return unmarshall(Item);
}

async function insertsOf(streamId: string) {
  return insertsOnly(await readStreamRecords(streamArn)).filter((record) => record.dynamodb?.NewImage?.['pk']?.S === `Order#${streamId}`);
}

const orderFold = { initial: emptyOrder, evolve: evolveOrder };

describe('events written by 0.2', () => {
  test('read, iterate, version and decodeItem give exactly the events 0.2 gave', async () => {
    const expected = await writeAs02('old-read');
    expect(await orders.read({ orderId: 'old-read' })).toEqual(expected);
    const iterated: StreamEvent[] = [];
    for await (const event of orders.iterate('old-read', { fromVersion: 2 })) iterated.push(event);
    expect(iterated).toEqual(expected.slice(1));
    expect(await orders.version('old-read')).toBe(3);
    for (const event of expected) expect(orders.decodeItem(await rawItem('old-read', event.version))).toEqual(event);
  });

  test('their stream images decode as bytes (GetRecords) and as base64 (Lambda), and project', async () => {
    const expected = await writeAs02('old-image');
    const records = await insertsOf('old-image');
    expect(records).toHaveLength(3);
    const decode = decoder({ Order: orders });
    expect(records.map((record) => decode(record.dynamodb?.NewImage)?.event)).toEqual(expected);
    expect(records.map((record) => decode(lambdaImage(record.dynamodb?.NewImage as SdkImage))?.event)).toEqual(expected);

    const model = orderSummaries(client, viewsTable, 'OldImageSummary');
    const result = await orderSummaryProjection(orders, model).processBatch(records.map(asLambdaRecord), { source: 'lambda' });
    expect(result.response).toEqual({ batchItemFailures: [] });
    expect(await model.get({ orderId: 'old-image' }, { consistent: true })).toMatchObject(foldSummary('old-image', expected as OrderEvent[]));
  });
});

describe('a stream of 0.2 events 1..3 and new events after them', () => {
  test('appends, loads, executes and reads contiguously; the new items carry no streamId, version or timestamp', async () => {
    const old = await writeAs02('mixed');
    // At the head: the head is read from a 0.2 item, then one conditional Put of version 4.
    const fourth = await orders.append('mixed', [{ type: 'ItemAdded', data: { sku: 'c', price: 1 } }]);
    expect(fourth.version).toBe(4);
    const loaded = await orders.load('mixed', orderFold);
    expect(loaded).toEqual({ version: 4, state: { placed: true, shipped: false, items: 3, total: 8.5 } });
    const fifth = await orders.execute('mixed', {
      ...orderFold,
      decide: (state) => (state.shipped ? [] : [{ type: 'OrderShipped' as const, data: {} }]),
    });
    expect(fifth).toMatchObject({ version: 5, state: { shipped: true, items: 3 } });
    const stale = await orders.append('mixed', [{ type: 'OrderShipped', data: {} }], { expectedVersion: 3 }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(ConcurrencyError);
    expect(stale).toMatchObject({ expectedVersion: 3, actualVersion: 5 });

    const events = await orders.read('mixed');
    expect(events.map((event) => event.version)).toEqual([1, 2, 3, 4, 5]);
    expect(events.slice(0, 3)).toEqual(old);
    expect(events.slice(3)).toEqual([...fourth.events, ...fifth.events]);
    for (const event of events.slice(3)) {
      const item = await rawItem('mixed', event.version);
      expect(Object.keys(item).sort()).toEqual(['_df', 'ap', 'data', 'pk', 'sk', 'ts', 'type']);
      expect(typeof item['ts']).toBe('number');
      expect(new Date(item['ts'] as number).toISOString()).toBe(event.timestamp);
      expect(orders.decodeItem(item)).toEqual(event);
    }
  });

  test('execute that loses its version to a 0.2 writer decides again on the 0.2 event that won', async () => {
    // A writer still on 0.2 takes version 4 between this command's load and its Put.
    const racing = testClient();
    let rival: Record<string, unknown> | undefined = itemOf02('raced', 4, { type: 'ItemAdded', data: { sku: 'rival', price: 10 } });
    racing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutItemCommand' && rival !== undefined) {
          const item = rival;
          rival = undefined;
          await client.send(new PutItemCommand({ TableName: table, Item: marshall(item) }));
        }
        return next(args);
      },
      { step: 'initialize', name: 'rivalOn02' },
    );
    try {
      const old = await writeAs02('raced');
      const decided: number[] = [];
      const result = await orderStream(racing, table).execute('raced', {
        ...orderFold,
        decide: (state) => {
          decided.push(state.items);
          return [{ type: 'ItemAdded' as const, data: { sku: 'mine', price: 2 } }];
        },
      });
      expect(decided).toEqual([2, 3]);
      expect(result).toMatchObject({ version: 5, state: { items: 4, total: 19.5 } });
      const events = await orders.read('raced');
      expect(events.slice(0, 3)).toEqual(old);
      expect(events[3]).toEqual({
        streamName: 'Order',
        streamId: 'raced',
        version: 4,
        type: 'ItemAdded',
        data: { sku: 'rival', price: 10 },
        timestamp: timeOf(4),
      });
      expect(events[4]).toEqual(result.events[0]);
    } finally {
      racing.destroy();
    }
  });

  test('a projection folds both kinds, from their records and by reading the 0.2 ones to fill a gap', async () => {
    await writeAs02('mixed-projected');
    await orders.append('mixed-projected', [
      { type: 'ItemAdded', data: { sku: 'c', price: 1 } },
      { type: 'OrderShipped', data: {} },
    ]);
    const events = await orders.read('mixed-projected');
    // Three records of 0.2's items, and one of the new commit holding versions 4 and 5.
    const records = (await insertsOf('mixed-projected')).map(asLambdaRecord);
    expect(records).toHaveLength(4);
    const decode = decoder({ Order: orders });
    expect(records.flatMap((record) => decode(record.dynamodb?.NewImage)?.events ?? [])).toEqual(events);

    const whole = orderSummaries(client, viewsTable, 'MixedSummary');
    await orderSummaryProjection(orders, whole).processBatch(records, { source: 'lambda' });
    expect(await whole.get({ orderId: 'mixed-projected' }, { consistent: true })).toMatchObject(
      foldSummary('mixed-projected', events as OrderEvent[]),
    );

    // Only the new records delivered: versions 1..3 are read from the table, as 0.2 wrote them.
    const gap = orderSummaries(client, viewsTable, 'MixedGapSummary');
    const result = await orderSummaryProjection(orders, gap).processBatch(records.slice(3), { source: 'lambda' });
    expect(result.outcomes[0]).toMatchObject({ status: 'applied', applied: events, version: 5 });
    expect(await gap.get({ orderId: 'mixed-projected' }, { consistent: true })).toMatchObject(foldSummary('mixed-projected', events as OrderEvent[]));
  });
});

describe('broken event items are DecodeErrors naming what is wrong', () => {
  const placed = { type: 'OrderPlaced', data: { customer: 'x' } } as const;
  const as02 = itemOf02('b-1', 1, placed);
  const { streamId: _streamId, version: _version, timestamp: _timestamp, ...keysOnly } = as02;
  const asNow = { ...keysOnly, ts: Date.parse('2025-06-01T10:00:00.000Z') };

  const byTheKeys: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'a partition key of another stream',
      { pk: 'Invoice#b-1' },
      /partition key does not start with "Order#".*not written by an append of this stream/,
    ],
    ['a partition key that is the name alone', { pk: 'Order' }, /partition key does not start with "Order#"/],
    ['no partition key', { pk: undefined }, /partition key does not start with "Order#"/],
    ['a sort key of too few digits', { sk: 'e#1' }, /sort key is not "e#" and a version of 10 digits from 1 \(e#0000000001\)/],
    ['a sort key of version 0', { sk: 'e#0000000000' }, /sort key is not "e#" and a version/],
    ['a sort key that is no number', { sk: 'e#00000000x1' }, /sort key is not "e#" and a version/],
    ['the sort key of a snapshot', { sk: 'snapshot' }, /sort key is not "e#" and a version/],
  ];
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ...byTheKeys.map(([name, patch, message]): [string, Record<string, unknown>, RegExp] => [`${name} (0.2 item)`, { ...as02, ...patch }, message]),
    ...byTheKeys.map(([name, patch, message]): [string, Record<string, unknown>, RegExp] => [`${name}`, { ...asNow, ...patch }, message]),
    [
      'a 0.2 streamId other than its partition key says',
      { ...as02, streamId: 'b-2' },
      /holds the streamId "b-2" where its partition key says "b-1": the item was not written by an append/,
    ],
    [
      'a 0.2 version other than its sort key says',
      { ...as02, version: 2 },
      /holds the version 2 where its sort key says 1: the item was not written by an append/,
    ],
    ['a 0.2 version as a string', { ...as02, version: '1' }, /holds the version "1" where its sort key says 1/],
    ['a 0.2 version beyond a safe integer', { ...as02, version: 2n ** 60n }, /holds the version 1152921504606846976 where its sort key says 1/],
    ['a 0.2 streamId that is not a string', { ...as02, streamId: 7 }, /holds the streamId 7 where its partition key says "b-1"/],
    [
      'an append time that is a string',
      { ...asNow, ts: '2025-06-01' },
      /append time 'ts' "2025-06-01": an append writes an integer of epoch milliseconds/,
    ],
    ['an append time with a fraction', { ...asNow, ts: 1.5 }, /append time 'ts' 1.5/],
    ['an append time beyond a safe integer', { ...asNow, ts: 2n ** 60n }, /append time 'ts' 1152921504606846976/],
    ['an append time past what a date holds', { ...asNow, ts: 9e15 }, /append time 'ts' 9000000000000000/],
    ['no type', { ...asNow, type: undefined }, /lacks a string type/],
  ];

  test.each(cases)('%s', (_, item, message) => {
    const image = marshall(item, { removeUndefinedValues: true });
    expect(() => orders.decodeItem(unmarshall(image))).toThrow(message);
    for (const candidate of [image, lambdaImage(image as SdkImage)]) {
      let caught: unknown;
      try {
        decoder({ Order: orders })(candidate);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(DecodeError);
      expect(caught).toMatchObject({ code: 'store.decode', streamName: 'Order', message: expect.stringMatching(message) });
    }
  });

  test('the good shapes decode: a 0.2 item and one of today', () => {
    const event = { streamName: 'Order', streamId: 'b-1', version: 1, ...placed, timestamp: '2025-06-01T10:00:01.000Z' };
    expect(orders.decodeItem(as02)).toEqual(event);
    expect(orders.decodeItem(asNow)).toEqual({ ...event, timestamp: '2025-06-01T10:00:00.000Z' });
    expect(orders.decodeItem(keysOnly)).toEqual({ ...event, timestamp: '' });
  });

  test('a latest event item whose sort key holds no version fails version() and an append at the head, rather than reading as 0', async () => {
    await client.send(new PutItemCommand({ TableName: table, Item: marshall({ ...asNow, pk: 'Order#bad-head', sk: 'e#zz' }) }));
    await expect(orders.version('bad-head')).rejects.toThrow(/Event item Order#bad-head e#zz of stream Order: its sort key is not "e#"/);
    await expect(orders.append('bad-head', [placed])).rejects.toBeInstanceOf(DecodeError);
  });
});
