/**
 * A workflow's instance records each input once, with the outputs `decide` answered, and their effects
 * happen once; its timers fire once, never early; a completed instance records later inputs as ignored.
 */
import { eventsTableDefinition, type ParkedRow } from 'dynafold';
import { reactionsTableDefinition, sweepTimers } from 'dynafold/reactions';
import { createTestTable, testClient } from '../support/dynamo';
import { loseAnswers } from '../support/lost-answers';
import { TestClock } from 'dynafold/testing';

import { PAYMENT_DUE_MS, checkoutStreams, checkoutWorkflow } from '../support/checkout';

const client = testClient();
const answers = loseAnswers(client);
let tables: { events: string; reactions: string };
let runs = 0;

beforeAll(async () => {
  tables = {
    events: (await createTestTable(client, eventsTableDefinition, 'workflow-events')).name,
    reactions: (await createTestTable(client, reactionsTableDefinition, 'workflow-reactions')).name,
  };
});
afterEach(() => answers.stop());
afterAll(() => client.destroy());

function checkout(faults: Parameters<typeof checkoutWorkflow>[6] = {}) {
  const run = ++runs;
  const streams = checkoutStreams(client, tables.events, `${run}`);
  const clock = new TestClock();
  const { workflow, timers } = checkoutWorkflow(client, tables, streams, clock, `Checkout${run}`, undefined, faults);
  return { ...streams, workflow, timers, clock };
}

test('paid in time: the shipment is requested once, the payment timer cancelled, the instance completed', async () => {
  const { orders, payments, shipments, workflow, timers, clock } = checkout();
  const placed = await orders.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { amount: 30 } }]);
  await workflow.applyBatch(placed.events);
  const paid = await payments.append({ paymentId: 'p-1' }, [{ type: 'PaymentReceived', data: { orderId: 'o-1', amount: 30 } }]);
  await workflow.applyBatch([...paid.events, ...placed.events]);
  await workflow.applyBatch(paid.events);
  expect((await shipments.read({ orderId: 'o-1' })).map((event) => event.type)).toEqual(['ShipmentRequested']);
  expect((await workflow.stream.read({ id: 'o-1' })).map((event) => event.type)).toEqual([
    'InputReceived',
    'TimerScheduled',
    'InputReceived',
    'TimerCancelled',
    'CommandSent',
    'Completed',
  ]);
  expect(await workflow.load('o-1')).toMatchObject({ state: { placed: true, paid: 30 }, completed: true, version: 6 });
  clock.advance(PAYMENT_DUE_MS + 60_000);
  expect(await sweepTimers({ timers, owners: [workflow] })).toMatchObject({ fired: 0 });
  expect((await orders.read({ orderId: 'o-1' })).map((event) => event.type)).toEqual(['OrderPlaced']);
});

test('not paid: the timer never fires early, fires once however many sweeps run, and cancels the order; a late payment is ignored', async () => {
  const { orders, payments, shipments, workflow, timers, clock } = checkout();
  const placed = await orders.append({ orderId: 'o-2' }, [{ type: 'OrderPlaced', data: { amount: 30 } }]);
  await workflow.applyBatch(placed.events);
  clock.advance(PAYMENT_DUE_MS - 60_000);
  expect(await sweepTimers({ timers, owners: [workflow] })).toMatchObject({ fired: 0 });
  clock.advance(2 * 60_000);
  const sweeps = await Promise.all([1, 2, 3].map(() => sweepTimers({ timers, owners: [workflow] })));
  expect(sweeps.reduce((sum, sweep) => sum + sweep.fired, 0)).toBe(1);
  await sweepTimers({ timers, owners: [workflow] });
  expect((await orders.read({ orderId: 'o-2' })).map((event) => event.type)).toEqual(['OrderPlaced', 'OrderCancelled']);
  const late = await payments.append({ paymentId: 'p-2' }, [{ type: 'PaymentReceived', data: { orderId: 'o-2', amount: 30 } }]);
  await workflow.applyBatch(late.events);
  expect(await shipments.read({ orderId: 'o-2' })).toEqual([]);
  const recorded = await workflow.stream.read({ id: 'o-2' });
  expect(recorded.map((event) => event.type)).toEqual([
    'InputReceived',
    'TimerScheduled',
    'InputReceived',
    'CommandSent',
    'Completed',
    'InputIgnored',
  ]);
  expect(recorded[2]?.data).toMatchObject({ input: { type: 'timer', timer: { name: 'payment-due', data: { orderId: 'o-2' } } } });
});

test('lost answers on every write: each input recorded once, each effect once', async () => {
  const { orders, payments, shipments, workflow, timers, clock } = checkout();
  const placed = await orders.append({ orderId: 'o-3' }, [{ type: 'OrderPlaced', data: { amount: 10 } }]);
  const other = await orders.append({ orderId: 'o-4' }, [{ type: 'OrderPlaced', data: { amount: 10 } }]);
  const paid = await payments.append({ paymentId: 'p-3' }, [{ type: 'PaymentReceived', data: { orderId: 'o-3', amount: 10 } }]);
  answers.loseAtRate(0.5, 7);
  await workflow.applyBatch([...placed.events, ...other.events]);
  await Promise.all([workflow.applyBatch(paid.events), workflow.applyBatch(paid.events)]);
  clock.advance(PAYMENT_DUE_MS + 1);
  await Promise.all([sweepTimers({ timers, owners: [workflow] }), sweepTimers({ timers, owners: [workflow] })]);
  await workflow.applyBatch([...placed.events, ...other.events, ...paid.events]);
  expect(answers.lost.length).toBeGreaterThan(0);
  answers.stop();
  expect((await shipments.read({ orderId: 'o-3' })).map((event) => event.type)).toEqual(['ShipmentRequested']);
  expect((await orders.read({ orderId: 'o-4' })).map((event) => event.type)).toEqual(['OrderPlaced', 'OrderCancelled']);
  expect((await orders.read({ orderId: 'o-3' })).map((event) => event.type)).toEqual(['OrderPlaced']);
  const inputs = async (id: string) =>
    (await workflow.stream.read({ id })).filter((event) => event.type === 'InputReceived' || event.type === 'InputIgnored').length;
  expect([await inputs('o-3'), await inputs('o-4')]).toEqual([2, 2]);
});

test("a decide that throws parks the input's source instance; retryParked records the input and its effects once, skipParked passes over it", async () => {
  const fixed = new Set<string>();
  const { orders, payments, shipments, workflow } = checkout({ poison: { park: { afterAttempts: 1 } }, paymentFails: (id) => !fixed.has(id) });
  for (const id of ['o-5', 'o-6']) {
    const placed = await orders.append({ orderId: id }, [{ type: 'OrderPlaced', data: { amount: 5 } }]);
    await workflow.applyBatch(placed.events);
  }
  const paid5 = await payments.append({ paymentId: 'p-5' }, [{ type: 'PaymentReceived', data: { orderId: 'o-5', amount: 5 } }]);
  const paid6 = await payments.append({ paymentId: 'p-6' }, [{ type: 'PaymentReceived', data: { orderId: 'o-6', amount: 5 } }]);
  const outcomes = (await workflow.applyBatch([...paid5.events, ...paid6.events])).outcomes;
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['parked', 'parked']);
  const parked: ParkedRow[] = [];
  for await (const row of workflow.parkedRows()) parked.push(row);
  expect(parked.map((row) => row.key).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
    { source: `${payments.name}#p-5` },
    { source: `${payments.name}#p-6` },
  ]);
  const received = async (id: string) => (await workflow.stream.read({ id })).filter((event) => event.type === 'InputReceived').length;
  expect([await received('o-5'), await received('o-6')]).toEqual([1, 1]);

  fixed.add('o-5');
  const retried = await workflow.retryParked({ source: `${payments.name}#p-5` });
  expect(retried[0]?.applied.map((event) => event.streamId)).toEqual(['p-5']);
  expect(await workflow.retryParked({ source: `${payments.name}#p-5` })).toEqual([]);
  await workflow.applyBatch(paid5.events);
  expect((await shipments.read({ orderId: 'o-5' })).map((event) => event.type)).toEqual(['ShipmentRequested']);
  expect(await received('o-5')).toBe(2);

  const skipped = await workflow.skipParked({ source: `${payments.name}#p-6` });
  expect(skipped?.applied).toEqual([]);
  await workflow.applyBatch(paid6.events);
  expect(await shipments.read({ orderId: 'o-6' })).toEqual([]);
  expect(await received('o-6')).toBe(1);
  const left: ParkedRow[] = [];
  for await (const row of workflow.parkedRows()) left.push(row);
  expect(left).toEqual([]);
});
