import { marshall } from '@aws-sdk/util-dynamodb';
import { ItemBook, sizeOf, type IndexSchema } from '../../bench/cost/item-book';
import { ON_DEMAND_PRICES, dollars } from '../../bench/cost/pricing';
import { billRequest, type Bill } from '../../bench/cost/request-bill';

const TABLE = 'events';

/** An item of exactly `bytes` by AWS's rule: `pk` (2) + its value + `data` (4) + its value. */
function itemOf(bytes: number, pk = 'a', extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base = { pk, ...extra };
  return { ...base, data: 'x'.repeat(bytes - sizeOf(base) - 'data'.length) };
}

function book(indexes: IndexSchema[] = []): ItemBook {
  const b = new ItemBook();
  b.describe(TABLE, { key: ['pk'], indexes });
  return b;
}

const bill = (b: ItemBook, operation: string, input: Record<string, unknown>, output: Record<string, unknown> = {}) =>
  billRequest(b, operation, { TableName: TABLE, ...input }, { output }) as Bill;

describe('the cost model bills as AWS does', () => {
  test('an item is measured by its attribute names and values, the same in attribute values and plain values', () => {
    const item = itemOf(700, 'ab', { n: 12345, ok: true, tags: new Set(['a', 'b']) });
    expect(sizeOf(item)).toBe(700);
    expect(sizeOf(marshall(item))).toBe(700);
  });

  test('writes are billed per 1 KB of the item, at least one unit', () => {
    expect(bill(book(), 'PutItem', { Item: itemOf(1024) }).writeUnits).toBe(1);
    expect(bill(book(), 'PutItem', { Item: itemOf(1025) }).writeUnits).toBe(2);
    expect(bill(book(), 'PutItem', { Item: itemOf(10) }).writeUnits).toBe(1);
  });

  test('reads are billed per 4 KB, a GetItem of nothing still one step, eventually consistent at half', () => {
    expect(bill(book(), 'GetItem', { ConsistentRead: true }, { Item: itemOf(4096) }).readUnits).toBe(1);
    expect(bill(book(), 'GetItem', { ConsistentRead: true }, { Item: itemOf(4097) }).readUnits).toBe(2);
    expect(bill(book(), 'GetItem', { ConsistentRead: true }, {}).readUnits).toBe(1);
    expect(bill(book(), 'GetItem', {}, { Item: itemOf(4097) }).readUnits).toBe(1);
  });

  test("a Query's items are summed before rounding; an index is read eventually consistently", () => {
    const ten = Array.from({ length: 10 }, (_, i) => itemOf(400, `k${i}`));
    expect(bill(book(), 'Query', { ConsistentRead: true }, { Items: ten, Count: 10, ScannedCount: 10 }).readUnits).toBe(1);
    expect(bill(book(), 'Query', {}, { Items: ten, Count: 10 }).readUnits).toBe(0.5);
    expect(bill(book(), 'Query', { IndexName: 'byType', ConsistentRead: true }, { Items: ten }).readUnits).toBe(0.5);
    expect(bill(book(), 'Query', { ConsistentRead: true }, { Items: [], Count: 0 }).readUnits).toBe(1);
  });

  test('a filtered Query bills the items it read, the filtered ones estimated at the mean size', () => {
    const b = bill(book(), 'Query', { ConsistentRead: true }, { Items: [itemOf(2048)], Count: 1, ScannedCount: 3 });
    expect(b.readUnits).toBe(2); // 3 × 2 KB
    expect(b.approximations).toBe(1);
  });

  test('each item of a BatchGetItem is rounded on its own', () => {
    const b = book();
    const input = { RequestItems: { [TABLE]: { Keys: [{ pk: 'a' }, { pk: 'b' }], ConsistentRead: true } } };
    const output = { Responses: { [TABLE]: [itemOf(1536, 'a'), itemOf(6656, 'b')] } };
    expect(bill(b, 'BatchGetItem', input, output).readUnits).toBe(3); // 4 KB + 8 KB, not 8 KB
  });

  test('every item of a transaction is billed twice, its ConditionCheck included', () => {
    const b = book();
    bill(b, 'PutItem', { Item: itemOf(100, 'head') });
    const append = {
      TransactItems: [
        { ConditionCheck: { TableName: TABLE, Key: { pk: 'head' }, ConditionExpression: 'attribute_exists(pk)' } },
        { Put: { TableName: TABLE, Item: itemOf(300, 'e1') } },
      ],
    };
    expect(bill(b, 'TransactWriteItems', append).writeUnits).toBe(4);
    const five = {
      TransactItems: [append.TransactItems[0], ...[2, 3, 4, 5, 6].map((v) => ({ Put: { TableName: TABLE, Item: itemOf(300, `e${v}`) } }))],
    };
    expect(bill(b, 'TransactWriteItems', five).writeUnits).toBe(12);
    expect(
      billRequest(
        b,
        'TransactGetItems',
        { TransactItems: [{ Get: { TableName: TABLE, Key: { pk: 'head' } } }] },
        { output: { Responses: [{ Item: itemOf(100, 'head') }] } },
      )?.readUnits,
    ).toBe(2);
  });

  test('a cancelled transaction is billed in full and writes nothing', () => {
    const b = book();
    const put = { TransactItems: [{ Put: { TableName: TABLE, Item: itemOf(2000, 'p') } }] };
    expect(billRequest(b, 'TransactWriteItems', put, { failed: 'cancelled' })?.writeUnits).toBe(4);
    expect(b.stored(TABLE, { pk: 'p' })).toBeUndefined();
  });

  test('an UpdateItem is billed at the larger of the item before and after it', () => {
    const b = book();
    bill(b, 'PutItem', { Item: itemOf(3000, 'row') });
    expect(bill(b, 'UpdateItem', { Key: { pk: 'row' }, ReturnValues: 'ALL_NEW' }, { Attributes: itemOf(500, 'row') }).writeUnits).toBe(3);
    expect(bill(b, 'UpdateItem', { Key: { pk: 'row' }, ReturnValues: 'ALL_NEW' }, { Attributes: itemOf(2100, 'row') }).writeUnits).toBe(3);
    expect(b.stored(TABLE, { pk: 'row' })?.bytes).toBe(2100);
  });

  test('a Put that replaces an item is billed at the larger of the two; a failed condition at the item there, at least one unit', () => {
    const b = book();
    bill(b, 'PutItem', { Item: itemOf(5000, 'big') });
    expect(bill(b, 'PutItem', { Item: itemOf(100, 'big') }).writeUnits).toBe(5);
    expect(billRequest(b, 'PutItem', { TableName: TABLE, Item: itemOf(100, 'big') }, { failed: 'condition' })?.writeUnits).toBe(1);
    bill(b, 'PutItem', { Item: itemOf(5000, 'big') });
    expect(billRequest(b, 'UpdateItem', { TableName: TABLE, Key: { pk: 'big' } }, { failed: 'condition' })?.writeUnits).toBe(5);
    expect(billRequest(b, 'PutItem', { TableName: TABLE, Item: itemOf(100, 'new') }, { failed: 'condition' })?.writeUnits).toBe(1);
  });

  test("a global secondary index's writes come on top: an entry put, a key changed twice, an untouched entry nothing", () => {
    const b = book([{ name: 'byType', key: ['type'], projection: 'KEYS_ONLY', include: [] }]);
    expect(bill(b, 'PutItem', { Item: itemOf(300, 'a') }).writeUnits).toBe(1); // not in the sparse index
    expect(bill(b, 'PutItem', { Item: itemOf(300, 'b', { type: 'T' }) }).writeUnits).toBe(2);
    const changed = itemOf(300, 'b', { type: 'U' });
    expect(bill(b, 'UpdateItem', { Key: { pk: 'b' }, ReturnValues: 'ALL_NEW' }, { Attributes: changed }).writeUnits).toBe(3);
    const sameKeys = { ...changed, data: 'y'.repeat(String(changed['data']).length) };
    expect(bill(b, 'UpdateItem', { Key: { pk: 'b' }, ReturnValues: 'ALL_NEW' }, { Attributes: sameKeys }).writeUnits).toBe(1);
    expect(bill(b, 'DeleteItem', { Key: { pk: 'b' } }).writeUnits).toBe(2);
  });

  test('dollars are the on-demand prices of us-east-1 per million units', () => {
    expect(ON_DEMAND_PRICES.region).toBe('us-east-1');
    expect(dollars(1e6, 0)).toBe(0.625);
    expect(dollars(0, 1e6)).toBe(0.125);
  });
});
