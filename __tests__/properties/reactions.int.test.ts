import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import fc from 'fast-check';
import { eventsTableDefinition, type ParkedRow } from 'dynafold';
import type { PartialBatchResponse } from 'dynafold/lambda';
import { DynamoTimers, Reaction, command, reactionsTableDefinition, schedule, sweepTimers, type Workflow } from 'dynafold/reactions';
import { TestClock } from 'dynafold/testing';
import { PAYMENT_DUE_MS, checkoutStreams, checkoutWorkflow } from '../support/checkout';
import { deliver, deliveries, propertySettings, propertyTimeout, type Delivery } from '../support/delivery';
import { createTestTable, testClient } from '../support/dynamo';
import { loseAnswers } from '../support/lost-answers';
import { seededRandom } from '../support/random';
import { reserve, shopOrders, stockStream } from '../support/shop';
import { readStreamRecords } from '../support/stream-records';

// Reactions and workflows over small domains: a few orders' events delivered shuffled, duplicated and split
// on parallel lanes with retries, to two processes taking the calls in turn at random (each remembers the
// progress it wrote, which the other's writes make stale); lost answers on every kind of write; calls cut
// short at any point (a crash between the effects' transaction and the call's answer: the batch is
// delivered again); handlers that throw until a fix, parking their instance, then retried; timers swept
// before they are due, then twice at once and again, late. Every source event's effects happen once,
// every timer fires once and never early, every workflow's stream holds each input once.
const client = testClient();
const answers = loseAnswers(client);
let eventsTable: string;
let eventsStream: string;
let reactionsTable: string;
let cases = 0;

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'property-reaction-events');
  eventsTable = events.name;
  eventsStream = events.streamArn as string;
  reactionsTable = (await createTestTable(client, reactionsTableDefinition, 'property-reactions')).name;
});
afterEach(() => answers.stop());
afterAll(() => client.destroy());

/** How the calls fail besides the deliveries' shape: answers lost, calls cut short. */
const faults = fc.record({
  lostAnswers: fc.constantFrom(0, 0.2, 0.4),
  crashes: fc.constantFrom(0, 0.2),
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
});
type Faults = { readonly lostAnswers: number; readonly crashes: number; readonly seed: number };

/** The records of one stream's event INSERTs so far. */
async function recordsOf(streamName: string): Promise<_Record[]> {
  const all = await readStreamRecords(eventsStream);
  return all.filter((record) => record.eventName === 'INSERT' && record.dynamodb?.NewImage?.['_df']?.S === streamName);
}

/**
 * Delivers `records` to `handle` as `delivery` says, some calls cut short at a random point (their batch
 * fails whole and is delivered again), with every write's answer lost at `faults.lostAnswers`.
 */
async function deliverWithFaults(
  records: ReadonlyArray<_Record>,
  delivery: Delivery,
  faults: Faults,
  handle: (batch: unknown[], signal: AbortSignal | undefined) => Promise<PartialBatchResponse>,
): Promise<void> {
  const random = seededRandom(faults.seed);
  answers.loseAtRate(faults.lostAnswers, faults.seed);
  try {
    await deliver(records, delivery, async (batch) => {
      if (random() >= faults.crashes) return handle(batch, undefined);
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(new Error('crashed')), Math.floor(random() * 20));
      try {
        await handle(batch, stop.signal);
      } catch {
        // A crash: whatever the call did, its batch is delivered again.
      } finally {
        clearTimeout(timer);
      }
      const first = batch[0] as _Record;
      return { batchItemFailures: [{ itemIdentifier: first.dynamodb?.SequenceNumber as string }] };
    });
  } finally {
    answers.stop();
  }
}

/** Retries every parked instance until none is left (a throttled replay may leave one for the next round). */
async function retryAllParked(reaction: Reaction): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const parked: ParkedRow[] = [];
    for await (const row of reaction.parkedRows()) parked.push(row);
    if (parked.length === 0) return;
    await reaction.retryParked();
  }
  throw new Error('instances stayed parked');
}

/** An order's events: items of sku `a`, `b`, or `t` (which also schedules a timer), and payments of 13, which fail until the fix. */
const orderWork = fc.array(
  fc.record({
    order: fc.integer({ min: 1, max: 3 }),
    kind: fc.constantFrom('a', 'b', 't', 'poison'),
    together: fc.boolean(),
  }),
  { minLength: 1, maxLength: 9 },
);

test(
  "a reaction's effects happen once per event; its timers fire once, never early",
  async () => {
    await fc.assert(
      fc.asyncProperty(orderWork, deliveries, faults, async (work, delivery, faulty) => {
        const run = ++cases;
        const orders = shopOrders(client, eventsTable, `POrder${run}`);
        const stock = stockStream(client, eventsTable, `PStock${run}`);
        const clock = new TestClock();
        const timers = new DynamoTimers({ client, table: reactionsTable, clock });
        const fault = { fixed: false };
        const process = () =>
          new Reaction({
            name: `property-${run}`,
            streams: [orders],
            client,
            table: reactionsTable,
            timers,
            poison: { park: { afterAttempts: 1 } },
            react: (event) => {
              if (event.type === 'PaymentReceived') {
                if (!fault.fixed) throw new Error('poison');
                return undefined;
              }
              if (event.type !== 'ItemAdded') return undefined;
              const reserving = command(stock, { sku: event.data.sku }, reserve(event.streamId, event.version, 1));
              if (event.data.sku !== 't') return reserving;
              return [reserving, schedule(`t-${event.streamId}-${event.version}`, Date.parse(event.timestamp) + 3_600_000)];
            },
            onTimer: (timer) => command(stock, { sku: 'fired' }, reserve(timer.name, 0, 1)),
          });
        const processes = [process(), process()] as const;
        const reaction = processes[0];
        const pick = seededRandom(faulty.seed + 7);
        const expected: string[] = [];
        const timersExpected: string[] = [];
        for (let index = 0; index < work.length; index++) {
          const entry = work[index] as (typeof work)[number];
          const next = work[index + 1];
          const batch = entry.together && next?.order === entry.order ? [entry, next] : [entry];
          if (batch.length === 2) index++;
          const { events } = await orders.append(
            { orderId: `o-${entry.order}` },
            batch.map((each) =>
              each.kind === 'poison'
                ? { type: 'PaymentReceived' as const, data: { amount: 13 } }
                : { type: 'ItemAdded' as const, data: { sku: each.kind, quantity: 1 } },
            ),
          );
          for (const event of events) {
            if (event.type !== 'ItemAdded') continue;
            expected.push(`${event.data.sku}:${event.streamId}@${event.version}`);
            if (event.data.sku === 't') timersExpected.push(`t-${event.streamId}-${event.version}@0`);
          }
        }
        const records = await recordsOf(orders.name);
        await deliverWithFaults(
          records,
          delivery,
          faulty,
          async (batch, signal) => (await processes[pick() < 0.5 ? 0 : 1].processBatch(batch, { logger: false, signal })).response,
        );
        fault.fixed = true;
        await retryAllParked(reaction);
        // Not due yet: nothing fires.
        expect((await sweepTimers({ timers, owners: [reaction], logger: false })).fired).toBe(0);
        clock.advance(3_600_000 + 1);
        answers.loseAtRate(faulty.lostAnswers, faulty.seed + 1);
        const sweeps = await Promise.all([1, 2].map(() => sweepTimers({ timers, owners: [reaction], logger: false })));
        const late = await sweepTimers({ timers, owners: [reaction], logger: false });
        answers.stop();
        expect(sweeps.concat(late).flatMap((sweep) => sweep.failed)).toEqual([]);
        const reserved = async (sku: string) =>
          (await stock.read({ sku })).flatMap((event) => (event.type === 'Reserved' ? [`${sku}:${event.data.orderId}@${event.data.version}`] : []));
        const all = [...(await reserved('a')), ...(await reserved('b')), ...(await reserved('t'))];
        expect(all.sort()).toEqual(expected.sort());
        expect((await reserved('fired')).map((entry) => entry.slice('fired:'.length)).sort()).toEqual(timersExpected.sort());
      }),
      propertySettings(12),
    );
  },
  propertyTimeout(12),
);

/** Orders placed, some paid (once or twice, before or after their payment is due). */
const checkoutWork = fc.array(fc.record({ payments: fc.constantFrom(0, 1, 2), late: fc.boolean() }), { minLength: 1, maxLength: 3 });

test(
  "a workflow's stream holds each input once; each paid order ships once, each unpaid one is cancelled once, when due",
  async () => {
    await fc.assert(
      fc.asyncProperty(checkoutWork, deliveries, faults, async (work, delivery, faulty) => {
        const run = ++cases;
        const streams = checkoutStreams(client, eventsTable, `P${run}`);
        const clock = new TestClock();
        const { workflow, timers } = checkoutWorkflow(client, { events: eventsTable, reactions: reactionsTable }, streams, clock, `PCheckout${run}`);
        // A second process of the workflow takes calls too (see the reaction's property).
        const { workflow: other } = checkoutWorkflow(
          client,
          { events: eventsTable, reactions: reactionsTable },
          streams,
          clock,
          `PCheckout${run}`,
          timers,
        );
        const pick = seededRandom(faulty.seed + 7);
        const handle = (batch: unknown[], signal: AbortSignal | undefined) =>
          (pick() < 0.5 ? workflow : other).processBatch(batch, { logger: false, signal });
        const inputs = new Map<string, number>();
        const input = (id: string) => inputs.set(id, (inputs.get(id) ?? 0) + 1);
        for (const [n, order] of work.entries()) {
          await streams.orders.append({ orderId: `o-${n}` }, [{ type: 'OrderPlaced', data: { amount: 10 } }]);
          input(`o-${n}`);
          for (let p = 0; p < order.payments && !order.late; p++) {
            await streams.payments.append({ paymentId: `p-${n}-${p}` }, [{ type: 'PaymentReceived', data: { orderId: `o-${n}`, amount: 10 } }]);
            input(`o-${n}`);
          }
        }
        const early = [...(await recordsOf(streams.orders.name)), ...(await recordsOf(streams.payments.name))];
        await deliverWithFaults(early, delivery, faulty, async (batch, signal) => (await handle(batch, signal)).response);
        expect((await sweepTimers({ timers, owners: [workflow], logger: false })).fired).toBe(0);
        clock.advance(PAYMENT_DUE_MS + 1);
        answers.loseAtRate(faulty.lostAnswers, faulty.seed + 1);
        const sweeps = await Promise.all([1, 2].map(() => sweepTimers({ timers, owners: [workflow], logger: false })));
        answers.stop();
        expect(sweeps.flatMap((sweep) => sweep.failed)).toEqual([]);
        const unpaid = work.flatMap((order, n) => (order.payments === 0 || order.late ? [`o-${n}`] : []));
        expect(sweeps.reduce((sum, sweep) => sum + sweep.fired, 0)).toBe(unpaid.length);
        for (const id of unpaid) input(id);
        // Late payments: each is an input, recorded as ignored (the instance completed when its timer fired).
        for (const [n, order] of work.entries()) {
          for (let p = 0; p < order.payments && order.late; p++) {
            await streams.payments.append({ paymentId: `p-${n}-${p}` }, [{ type: 'PaymentReceived', data: { orderId: `o-${n}`, amount: 10 } }]);
            input(`o-${n}`);
          }
        }
        const all = [...(await recordsOf(streams.orders.name)), ...(await recordsOf(streams.payments.name))];
        await deliverWithFaults(all, delivery, faulty, async (batch, signal) => (await handle(batch, signal)).response);
        await sweepTimers({ timers, owners: [workflow], logger: false });
        for (const [n, order] of work.entries()) {
          const id = `o-${n}`;
          const paid = order.payments > 0 && !order.late;
          expect((await streams.shipments.read({ orderId: id })).length).toBe(paid ? 1 : 0);
          expect((await streams.orders.read({ orderId: id })).map((event) => event.type)).toEqual(
            paid ? ['OrderPlaced'] : ['OrderPlaced', 'OrderCancelled'],
          );
          expect(await recordedInputs(workflow, id)).toBe(inputs.get(id));
        }
      }),
      propertySettings(10),
    );
  },
  propertyTimeout(10),
);

/** The inputs an instance's stream recorded, received or ignored. */
async function recordedInputs(workflow: Pick<Workflow, 'stream'>, id: string): Promise<number> {
  const recorded = await workflow.stream.read({ id });
  return recorded.filter((event) => event.type === 'InputReceived' || event.type === 'InputIgnored').length;
}
