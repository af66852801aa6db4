import { DecodeError, ValidationError } from 'dynafold';
import { joinComposite, splitComposite } from '../../lib/store/codec/composite';
import { compress, decompress } from '../../lib/dynamo/compression';
import { eventCodec, validateNewEvent } from '../../lib/store/codec/event-codec';
import { fromEventItem, toEventItem } from '../support/commits';

import { itemSize } from '../../lib/dynamo/item-size';
import { eventSortKey, MAX_VERSION } from '../../lib/store/layout';
import { orderEventSchemas } from '../support/orders';

describe('composite ids', () => {
  test('one field: the value as is, "#" included', () => {
    expect(joinComposite('id', ['orderId'], { orderId: 'a#b' })).toBe('a#b');
    expect(splitComposite('id', ['orderId'], 'a#b')).toEqual({ orderId: 'a#b' });
  });

  test('several fields: joined with "#" and split back', () => {
    const joined = joinComposite('id', ['tenant', 'orderId', 'line'], { tenant: 'acme', orderId: 'o-1', line: 3 });
    expect(joined).toBe('acme#o-1#3');
    expect(splitComposite('id', ['tenant', 'orderId', 'line'], joined)).toEqual({ tenant: 'acme', orderId: 'o-1', line: '3' });
  });

  test.each<[string, Record<string, unknown>]>([
    ['a "#" in a value', { tenant: 'ac#me', orderId: 'o-1' }],
    ['a missing value', { tenant: 'acme' }],
    ['an empty value', { tenant: '', orderId: 'o-1' }],
    ['a value that is neither string nor number', { tenant: 'acme', orderId: true }],
    ['a number that is not finite', { tenant: 'acme', orderId: Number.NaN }],
  ])('%s is a ValidationError', (_, values) => {
    expect(() => joinComposite('Stream id of Order', ['tenant', 'orderId'], values)).toThrow(ValidationError);
  });

  test.each([['acme'], ['acme#o-1#x'], ['#o-1'], ['acme#']])('"%s" does not split into two fields', (joined) => {
    expect(() => splitComposite('id', ['tenant', 'orderId'], joined)).toThrow(ValidationError);
  });
});

describe('item size', () => {
  test('counts names and values by byte length', () => {
    expect(itemSize({ a: 'xyz' })).toBe(4);
    expect(itemSize({ é: 'é' })).toBe(4);
    expect(itemSize({ n: 12345 })).toBe(1 + 4);
    expect(itemSize({ b: new Uint8Array(10) })).toBe(11);
    expect(itemSize({ t: true, z: null, u: undefined })).toBe(4);
    expect(itemSize({ m: { k: 'v' } })).toBe(1 + 3 + 1 + 1 + 1);
    expect(itemSize({ l: ['ab', 'c'] })).toBe(1 + 3 + 3 + 2);
  });

  test('a stored event item is estimated above its raw JSON size', () => {
    const codec = eventCodec('Order', orderEventSchemas, false);
    const item = toEventItem(codec, 'o-1', 1, validateNewEvent(codec, { type: 'OrderPlaced', data: { customer: 'x'.repeat(1000) } }, 0), 0);
    expect(itemSize(item)).toBeGreaterThan(1000);
    expect(itemSize(item)).toBeLessThan(1200);
  });
});

describe('compression', () => {
  const json = JSON.stringify({ text: 'the quick brown fox '.repeat(500) });
  test.each([['gzip' as const], ['brotli' as const]])('%s round-trips and shrinks repetitive JSON', (algorithm) => {
    const packed = compress(json, algorithm);
    expect(packed.byteLength).toBeLessThan(json.length / 10);
    expect(decompress(packed, algorithm)).toBe(json);
  });

  test('an unknown algorithm is refused', () => {
    expect(() => decompress(new Uint8Array(1), 'zstd')).toThrow(/zstd/);
  });
});

describe('event items', () => {
  const codec = eventCodec('Order', orderEventSchemas, { algorithm: 'brotli', thresholdBytes: 64 });

  test('sort keys are zero-padded so they sort like versions', () => {
    expect(eventSortKey(1)).toBe('e#0000000001');
    expect(eventSortKey(9) < eventSortKey(10)).toBe(true);
    expect(eventSortKey(MAX_VERSION)).toBe('e#9999999999');
  });

  test('an item decodes to the event it was built from, with data as bytes or base64', () => {
    const event = validateNewEvent(codec, { type: 'OrderPlaced', data: { customer: 'y'.repeat(200) }, metadata: { by: 'me' } }, 0);
    const item = toEventItem(codec, 'o-1', 7, event, Date.parse('2024-01-01T00:00:00.000Z'));
    expect(item['enc']).toBe('brotli');
    expect(item['data']).toBeInstanceOf(Uint8Array);
    const decoded = fromEventItem(codec, item);
    expect(decoded).toEqual({
      streamName: 'Order',
      streamId: 'o-1',
      version: 7,
      type: 'OrderPlaced',
      data: { customer: 'y'.repeat(200) },
      metadata: { by: 'me' },
      timestamp: '2024-01-01T00:00:00.000Z',
    });
    const base64 = { ...item, data: Buffer.from(item['data'] as Uint8Array).toString('base64') };
    expect(fromEventItem(codec, base64)).toEqual(decoded);
  });

  test('an item whose compression attribute is not a name says so, and what it holds', () => {
    const event = validateNewEvent(codec, { type: 'OrderPlaced', data: { customer: 'y'.repeat(200) } }, 0);
    const item = { ...toEventItem(codec, 'o-1', 7, event, Date.parse('2024-01-01T00:00:00.000Z')), enc: { algorithm: 'brotli' } };
    expect(() => fromEventItem(codec, item)).toThrow(DecodeError);
    expect(() => fromEventItem(codec, item)).toThrow(/compression attribute 'enc' holds {"algorithm":"brotli"}, not an algorithm's name/);
  });

  test('zod output is what gets stored', () => {
    const trimmed = eventCodec(
      'Order',
      { Named: orderEventSchemas.OrderPlaced.extend({ customer: orderEventSchemas.OrderPlaced.shape.customer.trim() }) },
      codec.compression,
    );
    expect(validateNewEvent(trimmed, { type: 'Named', data: { customer: '  ada ' } }, 0).data).toEqual({ customer: 'ada' });
  });
});
