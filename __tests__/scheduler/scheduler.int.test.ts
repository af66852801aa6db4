/**
 * The EventBridge Scheduler adapter, with a real SchedulerClient whose requests a middleware answers
 * before they are sent (the service has no local emulator): the timers are DynamoDB items as ever, and each
 * wakes at its time by a one-time schedule named after its key.
 */
import { eventsTableDefinition } from 'dynafold';
import { reactionsTableDefinition, sweepTimers } from 'dynafold/reactions';
import { SchedulerTimers, scheduleName, schedulerTimerHandler } from 'dynafold/scheduler';
import { TestClock } from 'dynafold/testing';
import { PAYMENT_DUE_MS, checkoutStreams, checkoutWorkflow } from '../support/checkout';
import { createTestTable, testClient } from '../support/dynamo';
import { atOf, schedulerStandIn } from '../support/scheduler-stand-in';

const client = testClient();
let tables: { events: string; reactions: string };
let runs = 0;

beforeAll(async () => {
  tables = {
    events: (await createTestTable(client, eventsTableDefinition, 'scheduler-events')).name,
    reactions: (await createTestTable(client, reactionsTableDefinition, 'scheduler-reactions')).name,
  };
});
afterAll(() => client.destroy());

function checkout() {
  const run = ++runs;
  const clock = new TestClock();
  const service = schedulerStandIn(clock);
  const timers = new SchedulerTimers({
    client,
    table: tables.reactions,
    clock,
    scheduler: service.client,
    target: { arn: 'arn:aws:lambda:us-east-1:111122223333:function:timers', roleArn: 'arn:aws:iam::111122223333:role/scheduler' },
    group: 'checkout',
  });
  const streams = checkoutStreams(client, tables.events, `S${run}`);
  const { workflow } = checkoutWorkflow(client, tables, streams, clock, `SCheckout${run}`, timers);
  const handler = schedulerTimerHandler({ timers, owners: [workflow], logger: false });
  return { ...streams, workflow, timers, clock, service, handler };
}

test('a timer scheduled by a delivery gets a one-time schedule at its time, which fires it once and is deleted', async () => {
  const { orders, workflow, clock, service, handler } = checkout();
  const { events } = await orders.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { amount: 3 } }]);
  await workflow.applyBatch(events);
  const name = scheduleName({ owner: workflow.name, scope: 'o-1', name: 'payment-due' });
  const schedule = service.schedules.get(`checkout/${name}`);
  expect(schedule).toMatchObject({ timezone: 'UTC', actionAfterCompletion: 'DELETE', flexibleWindow: 'OFF' });
  const due = Date.parse((events[0] as { timestamp: string }).timestamp) + PAYMENT_DUE_MS;
  expect(atOf(schedule?.expression ?? '')).toBe(Math.ceil(due / 1000) * 1000);
  expect(JSON.parse(schedule?.target.Input ?? '')).toEqual({ dynafoldTimer: { owner: workflow.name, scope: 'o-1', name: 'payment-due' } });
  // A redelivery plans no timer: the schedule stays one.
  await workflow.applyBatch(events);
  expect(service.calls.filter((call) => call.startsWith('POST'))).toHaveLength(1);
  expect(await service.runDue(handler)).toBe(0);
  clock.advance(PAYMENT_DUE_MS + 1000);
  const outcomes: unknown[] = [];
  expect(await service.runDue(async (input) => outcomes.push(await handler(input)))).toBe(1);
  expect(outcomes).toEqual(['fired']);
  expect(service.schedules.size).toBe(0);
  // Woken again (EventBridge invokes at least once): nothing more happens.
  expect(await handler({ dynafoldTimer: { owner: workflow.name, scope: 'o-1', name: 'payment-due' } })).toBe('gone');
  expect((await orders.read({ orderId: 'o-1' })).map((event) => event.type)).toEqual(['OrderPlaced', 'OrderCancelled']);
});

test('a cancelled timer has its schedule deleted; a schedule woken early wakes again at its time', async () => {
  const { orders, payments, workflow, clock, service, handler } = checkout();
  const placed = await orders.append({ orderId: 'o-2' }, [{ type: 'OrderPlaced', data: { amount: 3 } }]);
  const other = await orders.append({ orderId: 'o-3' }, [{ type: 'OrderPlaced', data: { amount: 3 } }]);
  await workflow.applyBatch([...placed.events, ...other.events]);
  expect(service.schedules.size).toBe(2);
  const paid = await payments.append({ paymentId: 'p-2' }, [{ type: 'PaymentReceived', data: { orderId: 'o-2', amount: 3 } }]);
  await workflow.applyBatch(paid.events);
  expect([...service.schedules.values()].map((schedule) => schedule.name)).toEqual([
    scheduleName({ owner: workflow.name, scope: 'o-3', name: 'payment-due' }),
  ]);
  // The schedule's invocation arrives before the clock says the timer is due: it is set again.
  expect(await handler({ dynafoldTimer: { owner: workflow.name, scope: 'o-3', name: 'payment-due' } })).toBe('early');
  expect(service.schedules.size).toBe(1);
  clock.advance(PAYMENT_DUE_MS + 1000);
  await service.runDue(handler);
  expect((await orders.read({ orderId: 'o-3' })).map((event) => event.type)).toEqual(['OrderPlaced', 'OrderCancelled']);
  expect((await orders.read({ orderId: 'o-2' })).map((event) => event.type)).toEqual(['OrderPlaced']);
});

test('a wake-up that could not be arranged (the service throttled) leaves the timer to the sweep', async () => {
  const { orders, workflow, timers, clock, service } = checkout();
  const { events } = await orders.append({ orderId: 'o-4' }, [{ type: 'OrderPlaced', data: { amount: 3 } }]);
  service.throttleNext(1);
  const { outcomes } = await workflow.applyBatch(events);
  expect(outcomes[0]?.status).toBe('applied');
  expect(service.schedules.size).toBe(0);
  clock.advance(PAYMENT_DUE_MS + 1000);
  expect(await sweepTimers({ timers, owners: [workflow] })).toMatchObject({ fired: 1 });
  expect((await orders.read({ orderId: 'o-4' })).map((event) => event.type)).toEqual(['OrderPlaced', 'OrderCancelled']);
});

test('a timer scheduled again while its schedule exists updates it (the name is the idempotency key)', async () => {
  const { workflow, timers, service } = checkout();
  const timer = { owner: workflow.name, scope: 'o-5', name: 'payment-due', id: 'a', at: Date.now() + 60_000 };
  await timers.scheduled([timer]);
  await timers.scheduled([{ ...timer, id: 'b', at: timer.at + 120_000 }]);
  expect(service.calls.map((call) => call.split(' ')[0])).toEqual(['POST', 'POST', 'PUT']);
  expect(atOf([...service.schedules.values()][0]?.expression ?? '')).toBe(Math.ceil((timer.at + 120_000) / 1000) * 1000);
  await timers.dropped([timer]);
  await timers.dropped([timer]);
  expect(service.schedules.size).toBe(0);
});
