/** The test kit's decider spec, pure: no DynamoDB request is sent (the client points nowhere). */
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ValidationError, type Decider } from 'dynafold';
import { SpecAssertionError, deciderSpec } from 'dynafold/testing';
import { emptyOrder, evolveOrder, orderStream, type OrderEvent, type OrderState } from '../support/orders';

const client = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });
const Orders = orderStream(client, 'orders-unused');
afterAll(() => client.destroy());

class OrderShipped extends Error {}
type OrderCommand = Decider<OrderState, OrderEvent, Parameters<typeof Orders.append>[1][number]>;
const fold = { initial: emptyOrder, evolve: evolveOrder };
const addItem = (sku: string, price: number): OrderCommand => ({
  ...fold,
  decide: (state) => {
    if (state.shipped) throw new OrderShipped(`order shipped: ${sku} not added`);
    return [{ type: 'ItemAdded', data: { sku, price }, metadata: { by: 'spec' } }];
  },
});
const placed = { type: 'OrderPlaced' as const, data: { customer: 'ada' } };
const shipped = { type: 'OrderShipped' as const, data: {} };

test('given events, when a command, then its events; resolves the state and version after them', async () => {
  const outcome = await deciderSpec(Orders)
    .given([placed])
    .given([{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }])
    .when(addItem('book', 12))
    .thenEvents([{ type: 'ItemAdded', data: { sku: 'book', price: 12 } }]);
  expect(outcome.version).toBe(3);
  expect(outcome.state).toEqual({ placed: true, shipped: false, items: 2, total: 14 });
  expect(outcome.events[0]).toMatchObject({ streamName: 'Order', version: 3, type: 'ItemAdded', metadata: { by: 'spec' } });
});

test('metadata is compared where an expected event has some', async () => {
  await deciderSpec(Orders)
    .when(addItem('cup', 3))
    .thenEvents([{ type: 'ItemAdded', data: { sku: 'cup', price: 3 }, metadata: { by: 'spec' } }]);
  await expect(
    deciderSpec(Orders)
      .when(addItem('cup', 3))
      .thenEvents([{ type: 'ItemAdded', data: { sku: 'cup', price: 3 }, metadata: { by: 'someone else' } }]),
  ).rejects.toBeInstanceOf(SpecAssertionError);
});

test('other events fail with what was decided and what was expected, for the runner to print one diff of', async () => {
  const failure = deciderSpec(Orders)
    .given([placed])
    .when(addItem('book', 12))
    .thenEvents([{ type: 'ItemAdded', data: { sku: 'book', price: 13 } }]);
  const error = await failure.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  expect(error).toBeInstanceOf(SpecAssertionError);
  // The message names the spec and what differs; the values are the runner's to diff (node's own diff in the
  // message made jest and vitest print them twice).
  expect(error).toMatchObject({
    message: 'Decider spec of Order failed\nevents:',
    operator: 'deepStrictEqual',
    actual: [{ type: 'ItemAdded', data: { sku: 'book', price: 12 } }],
    expected: [{ type: 'ItemAdded', data: { sku: 'book', price: 13 } }],
  });
});

test("a failed spec's stack starts at the test that called it, not in the kit", async () => {
  const specs = [
    () =>
      deciderSpec(Orders)
        .when(addItem('book', 12))
        .thenEvents([{ type: 'ItemAdded', data: { sku: 'book', price: 13 } }]),
    () => deciderSpec(Orders).when(addItem('book', 12)).thenThrows(OrderShipped),
  ];
  for (const spec of specs) {
    const error = await spec().then(
      () => undefined,
      (rejected: unknown) => rejected as Error,
    );
    const frames = (error?.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
    expect(frames[0]).toContain(__filename);
    expect(frames.filter((frame) => frame.includes(`${join('lib', 'testing')}`))).toEqual([]);
  }
});

test('when the command throws: thenThrows takes the error class or a predicate, and thenEvents fails', async () => {
  const whenShipped = deciderSpec(Orders).given([placed, shipped]).when(addItem('book', 12));
  await expect(whenShipped.thenThrows(OrderShipped)).resolves.toBeInstanceOf(OrderShipped);
  await expect(whenShipped.thenThrows((error) => error instanceof OrderShipped && error.message.includes('book'))).resolves.toBeInstanceOf(
    OrderShipped,
  );
  await expect(whenShipped.thenThrows(() => false)).rejects.toThrow(/OrderShipped: order shipped: book not added, which the predicate refused/);
  await expect(whenShipped.thenThrows(ValidationError)).rejects.toThrow(/expected a ValidationError, but the command threw/);
  await expect(whenShipped.thenEvents([])).rejects.toThrow(/expected events, but the command threw OrderShipped: order shipped/);
  await expect(deciderSpec(Orders).when(addItem('book', 12)).thenThrows(OrderShipped)).rejects.toThrow(
    /expected the command to throw, but it decided \[\{"type":"ItemAdded","data":\{"sku":"book","price":12\}\}\]/,
  );
});

test('events are checked by the stream schemas as an append would: a bad decision is a ValidationError', async () => {
  const bad: OrderCommand = { ...fold, decide: () => [{ type: 'ItemAdded', data: { sku: 'x', price: 'free' as unknown as number } }] };
  const error = await deciderSpec(Orders).when(bad).thenThrows(ValidationError);
  expect(error).toMatchObject({ code: 'store.validation', issues: [{ path: ['data', 'price'] }] });
  await expect(
    deciderSpec(Orders)
      .given([{ type: 'OrderPlaced', data: {} as { customer: string } }])
      .when(addItem('a', 1))
      .thenThrows(ValidationError),
  ).resolves.toBeInstanceOf(ValidationError);
});
