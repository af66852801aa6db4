import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, MultiSourceProjection, Projection, ReadModel, ValidationError, type KeyOfModel, type PrimaryKeyDefinition } from 'dynafold';
import type { QueryValues } from 'dynafold/types';

// The `@ts-expect-error` lines are the compile-time half of these tests: `npm run typecheck` fails when
// one of them compiles. The assertions check that typing the keys changed nothing at run time. No request
// is sent: building keys is pure.

const client = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
afterAll(() => client.destroy());

const OrderSummaries = new ReadModel({
  client,
  table: 'views',
  name: 'OrderSummary',
  schema: z.object({ orderId: z.string(), status: z.enum(['placed', 'shipped']), customer: z.string(), day: z.string(), version: z.number() }),
  key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
  indexes: {
    byStatus: { name: 'gsi1', pk: { field: 'gsi1pk', composite: ['status'] }, sk: { field: 'gsi1sk', composite: ['customer', 'day'] } },
    byCustomer: { name: 'gsi2', pk: { field: 'gsi2pk', composite: ['customer'] } },
  },
});

const Readings = new ReadModel({
  client,
  table: 'views',
  name: 'Reading',
  schema: z.object({ sensorId: z.string(), zone: z.string(), seq: z.number(), celsius: z.number() }),
  key: { pk: { field: 'pk', composite: ['sensorId'] }, sk: { field: 'sk', composite: ['zone', 'seq'] } },
});

describe('get, getItem and keyOf take exactly the key fields', () => {
  test('the key fields compile and make the key attributes as before', () => {
    expect(OrderSummaries.keyOf({ orderId: 'o-1' })).toEqual({ pk: 'OrderSummary#o-1', sk: 'OrderSummary' });
    expect(Readings.keyOf({ sensorId: 's-1', zone: 'east', seq: 3 })).toEqual({ pk: 'Reading#s-1', sk: 'Reading#east#3' });
  });

  test('an unknown or missing key field is a compile error, and still a ValidationError at run time', async () => {
    // @ts-expect-error `orderIdd` is not a key field
    await expect(OrderSummaries.get({ orderIdd: 'o-1' })).rejects.toBeInstanceOf(ValidationError);
    // @ts-expect-error `orderIdd` is not a key field
    expect(() => OrderSummaries.getItem({ orderIdd: 'o-1' })).toThrow(ValidationError);
    // @ts-expect-error `orderIdd` is not a key field
    expect(() => OrderSummaries.keyOf({ orderIdd: 'o-1' })).toThrow(ValidationError);
    // @ts-expect-error the sort key's `seq` is missing
    expect(() => Readings.keyOf({ sensorId: 's-1', zone: 'east' })).toThrow(ValidationError);
  });

  test('a field of the row that is not part of the key is refused too', () => {
    // @ts-expect-error `status` is a row field, not a key field
    expect(OrderSummaries.keyOf({ orderId: 'o-1', status: 'placed' })).toEqual({ pk: 'OrderSummary#o-1', sk: 'OrderSummary' });
  });

  test('key values have the row field types', () => {
    // @ts-expect-error `seq` is a number
    expect(Readings.keyOf({ sensorId: 's-1', zone: 'east', seq: '3' })).toEqual({ pk: 'Reading#s-1', sk: 'Reading#east#3' });
  });
});

describe('query takes the index partition key fields and a leading part of its sort key fields', () => {
  const prefixOf = (values: QueryValues<z.output<typeof OrderSummaries.schema>, (typeof OrderSummaries.indexes)['byStatus']>) => values;

  test('every leading part compiles', () => {
    expect(prefixOf({ status: 'placed' })).toEqual({ status: 'placed' });
    expect(prefixOf({ status: 'placed', customer: 'ada' })).toEqual({ status: 'placed', customer: 'ada' });
    expect(prefixOf({ status: 'placed', customer: 'ada', day: 'mon' })).toEqual({ status: 'placed', customer: 'ada', day: 'mon' });
  });

  test('unknown fields, unknown indexes, missing partition fields and gaps in the sort key are compile errors', async () => {
    // @ts-expect-error `statuss` is not a field of the index
    await expect(OrderSummaries.query('byStatus', { statuss: 'placed' })).rejects.toBeInstanceOf(ValidationError);
    // @ts-expect-error `day` without `customer` is not a leading part of the sort key
    await expect(OrderSummaries.query('byStatus', { status: 'placed', day: 'mon' })).rejects.toBeInstanceOf(ValidationError);
    // @ts-expect-error no such index
    await expect(OrderSummaries.query('byDay', { day: 'mon' })).rejects.toBeInstanceOf(ValidationError);
    // @ts-expect-error an index without a sort key takes its partition key fields only
    expect(() => prefixOfCustomer({ customer: 'ada', day: 'mon' })).not.toThrow();
    // @ts-expect-error `shippd` is not a status
    expect(prefixOf({ status: 'shippd' })).toEqual({ status: 'shippd' });
    // @ts-expect-error the primary key's sort key fields come in order too
    await expect(Readings.query('primary', { sensorId: 's-1', seq: 3 })).rejects.toBeInstanceOf(ValidationError);
  });
});

const prefixOfCustomer = (values: QueryValues<z.output<typeof OrderSummaries.schema>, (typeof OrderSummaries.indexes)['byCustomer']>) => values;

test('key definitions the compiler only sees as string[] fall back to any record, checked at run time', () => {
  const key: PrimaryKeyDefinition = { pk: { field: 'pk', composite: ['orderId'] } };
  const Loose = new ReadModel({ client, table: 'views', name: 'Loose', schema: z.object({ orderId: z.string() }), key });
  expect(Loose.keyOf({ orderId: 'o-1', anything: true })).toEqual({ pk: 'Loose#o-1' });
  expect(() => Loose.keyOf({ orderIdd: 'o-1' })).toThrow(ValidationError);
});

describe('projections return and take the model key', () => {
  const Orders = new EventStream({
    client,
    table: 'events',
    name: 'Order',
    streamId: ['orderId'],
    events: { OrderPlaced: z.object({ customer: z.string(), day: z.string() }) },
  });
  const common = {
    stream: Orders,
    readModel: OrderSummaries,
    initial: (id: { orderId: string }) => ({ orderId: id.orderId, status: 'placed' as const, customer: '', day: '', version: 0 }),
    evolve: <S>(state: S) => state,
    checkpoint: 'version',
  };

  test('a key function with the key fields compiles, one with others does not', () => {
    const summaries = new Projection({ ...common, key: (id) => ({ orderId: id.orderId }) });
    // @ts-expect-error `orderIdd` is not a key field
    new Projection({ ...common, key: (id) => ({ orderIdd: id.orderId }) });
    expect(summaries.readModel).toBe(OrderSummaries);
    const typed: KeyOfModel<typeof OrderSummaries> = { orderId: 'o-1' };
    expect(typed).toEqual({ orderId: 'o-1' });
  });

  test('a multi-source projection types its sources keys and the key initial gets', () => {
    const byCustomer = new MultiSourceProjection({
      readModel: Readings,
      sources: { orders: { stream: Orders, key: (id) => ({ sensorId: id.orderId, zone: 'z', seq: 1 }) } },
      initial: (key) => ({ sensorId: key.sensorId, zone: key.zone, seq: key.seq, celsius: 0 }),
      evolve: (state) => state,
    });
    expect(byCustomer.readModel).toBe(Readings);
    new MultiSourceProjection({
      readModel: Readings,
      // @ts-expect-error `zonee` is not a key field
      sources: { orders: { stream: Orders, key: (id) => ({ sensorId: id.orderId, zonee: 'z', seq: 1 }) } },
      initial: () => ({ sensorId: '', zone: '', seq: 0, celsius: 0 }),
      evolve: (state) => state,
    });
  });
});
