/**
 * The reactions world: a reaction (an order's items reserve stock; some items schedule a timer an hour
 * later; payments of 13 make it throw until a fix) and a workflow (the checkout: a payment due 30 minutes
 * after the order, else the order is cancelled; paid, the shipment is requested) run on a client that
 * fails a share of its calls with every fault, losing the answer of every kind of write after DynamoDB
 * applied it. The table's real stream records are delivered as Lambda may with a parallelisation factor up
 * to 10: shuffled, duplicated, split on concurrent lanes, each batch retried from its first reported
 * failure, each call taken by one of two processes at random (each remembers the progress it wrote, which
 * the other's writes make stale); some calls are cut short at a random point (an invocation killed: the requests it sent may
 * land, none after) and their batch is delivered again. Parked instances are retried once the handler is
 * fixed; timers are swept before they are due, then by concurrent sweeps, then late; late payments reach
 * completed checkouts. Afterwards every source event's effects must be in the targets exactly once, in
 * version order per source instance, every timer fired once and never early, and every checkout's stream
 * must hold each of its inputs once.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { eventsTableDefinition, type ParkedRow } from 'dynafold';
import { DynamoTimers, Reaction, command, reactionsTableDefinition, schedule, sweepTimers, type TimerOwner } from 'dynafold/reactions';
import { TestClock } from 'dynafold/testing';
import { checkoutStreams, checkoutWorkflow } from '../__tests__/support/checkout';
import { deliver, type Delivery } from '../__tests__/support/delivery';
import { reserve, shopOrders, stockStream } from '../__tests__/support/shop';
import { readStreamRecords } from '../__tests__/support/stream-records';
import { injectFaults, quickRetries } from './faults';
import { randomInt, seededRandom } from './random';
import { ChaosSummary } from './summary';
import { dropTables, uniqueTableName, type ClientConfig } from './world';

/** When an item of sku `t` is due to fire its timer, after the event (later than a checkout's payment is due). */
const ITEM_TIMER_MS = 3_600_000;
/** The share of writes whose answer is lost, on top of the faults at the schedule's rate. */
const LOST_ANSWER_RATE = 0.25;
/** The writes a reaction, a workflow and a sweep send. */
const WRITES = [
  'TransactWriteItemsCommand',
  'TransactWriteCommand',
  'PutItemCommand',
  'PutCommand',
  'UpdateItemCommand',
  'UpdateCommand',
  'DeleteItemCommand',
  'DeleteCommand',
  'BatchWriteItemCommand',
  'BatchWriteCommand',
];
/** The amount of a payment the reaction throws on until its fix is deployed. */
const POISON_AMOUNT = 13;

/** The world's tables, shared by the 50 schedules it serves. */
export interface ReactionsWorld {
  readonly eventsTable: string;
  readonly streamArn: string;
  readonly reactionsTable: string;
}

export async function createReactionsWorld(client: DynamoDBClient): Promise<ReactionsWorld> {
  const eventsTable = uniqueTableName('chaos-r-events');
  const created = await client.send(new CreateTableCommand(eventsTableDefinition(eventsTable)));
  const streamArn = created.TableDescription?.LatestStreamArn;
  if (streamArn === undefined) throw new Error('the events table has no stream');
  const reactionsTable = uniqueTableName('chaos-r-reactions');
  await client.send(new CreateTableCommand(reactionsTableDefinition(reactionsTable)));
  return { eventsTable, streamArn, reactionsTable };
}

export function dropReactionsWorld(client: DynamoDBClient, world: ReactionsWorld): Promise<void> {
  return dropTables(client, world.eventsTable, world.reactionsTable);
}

/** Settings of one schedule. */
export interface ReactionsScheduleOptions {
  readonly seed: number;
  /** Share of the reacting client's calls that fail. */
  readonly faultRate: number;
}

/** The reaction and the checkout of one schedule, on `client`, named after the schedule. */
function actors(client: DynamoDBClient, world: ReactionsWorld, suffix: string, clock: TestClock, fault: { fixed: boolean }) {
  const orders = shopOrders(client, world.eventsTable, `ROrder${suffix}`);
  const stock = stockStream(client, world.eventsTable, `RStock${suffix}`);
  const timers = new DynamoTimers({ client, table: world.reactionsTable, clock });
  const reaction = new Reaction({
    name: `reserve-${suffix}`,
    streams: [orders],
    client,
    table: world.reactionsTable,
    timers,
    poison: { park: { afterAttempts: 1 } },
    react: (event) => {
      if (event.type === 'PaymentReceived' && event.data.amount === POISON_AMOUNT && !fault.fixed) throw new Error('poison');
      if (event.type !== 'ItemAdded') return undefined;
      const reserving = command(stock, { sku: event.data.sku }, reserve(event.streamId, event.version, 1));
      if (event.data.sku !== 't') return reserving;
      return [reserving, schedule(`t-${event.streamId}-${event.version}`, Date.parse(event.timestamp) + ITEM_TIMER_MS)];
    },
    onTimer: (timer) => command(stock, { sku: 'fired' }, reserve(timer.name, 0, 1)),
  });
  const streams = checkoutStreams(client, world.eventsTable, `R${suffix}`);
  const { workflow } = checkoutWorkflow(
    client,
    { events: world.eventsTable, reactions: world.reactionsTable },
    streams,
    clock,
    `RCheckout${suffix}`,
    timers,
  );
  return { orders, stock, timers, reaction, streams, workflow };
}

type Actors = ReturnType<typeof actors>;

/** What a schedule wrote and so expects: each item's reservation, each timer's firing, each checkout's inputs and fate. */
interface Expected {
  readonly reservations: string[];
  readonly timers: string[];
  poison: number;
  readonly checkouts: Array<{ readonly id: string; readonly paid: boolean; readonly late: number; inputs: number }>;
}

/** A seeded workload: orders' items and poison payments; checkouts placed and paid (once, twice, late or never). */
async function writeWorkload(writer: Actors, random: () => number): Promise<Expected> {
  const expected: Expected = { reservations: [], timers: [], poison: 0, checkouts: [] };
  const orderCount = randomInt(random, 2, 5);
  for (let append = 0; append < orderCount * 3; append++) {
    const orderId = `o-${randomInt(random, 1, orderCount)}`;
    const news = Array.from({ length: randomInt(random, 1, 2) }, () =>
      random() < 0.1
        ? { type: 'PaymentReceived' as const, data: { amount: POISON_AMOUNT } }
        : { type: 'ItemAdded' as const, data: { sku: ['a', 'b', 't'][randomInt(random, 0, 2)] as string, quantity: 1 } },
    );
    const { events } = await writer.orders.append({ orderId }, news);
    for (const event of events) {
      if (event.type === 'PaymentReceived') expected.poison++;
      if (event.type !== 'ItemAdded') continue;
      expected.reservations.push(`${event.data.sku}:${event.streamId}@${event.version}`);
      if (event.data.sku === 't') expected.timers.push(`t-${event.streamId}-${event.version}@0`);
    }
  }
  for (let n = 0; n < randomInt(random, 1, 4); n++) {
    const id = `c-${n}`;
    const payments = randomInt(random, 0, 2);
    const late = payments > 0 && random() < 0.3;
    await writer.streams.orders.append({ orderId: id }, [{ type: 'OrderPlaced', data: { amount: 10 } }]);
    for (let p = 0; p < payments && !late; p++)
      await writer.streams.payments.append({ paymentId: `p-${n}-${p}` }, [{ type: 'PaymentReceived', data: { orderId: id, amount: 10 } }]);
    // The order, its payments, and its timer's firing unless paid in time.
    expected.checkouts.push({
      id,
      paid: payments > 0 && !late,
      late: late ? payments : 0,
      inputs: 1 + (late ? 0 : payments) + (payments > 0 && !late ? 0 : 1),
    });
  }
  return expected;
}

/** The INSERT records of the named streams, as the table's stream holds them. */
async function recordsOf(world: ReactionsWorld, names: ReadonlyArray<string>): Promise<_Record[]> {
  const all = await readStreamRecords(world.streamArn);
  return all.filter((record) => record.eventName === 'INSERT' && names.includes(record.dynamodb?.NewImage?.['_df']?.S ?? ''));
}

/**
 * Delivers `records` to both the reaction and the workflow as Lambda may (a schedule's own lanes, batches
 * and duplicates), each call to one of `processes` at random (each remembers the progress it wrote, which
 * the others' writes make stale), a share of the calls cut short at a random point and their batch
 * delivered again.
 */
async function deliverAll(
  records: ReadonlyArray<_Record>,
  processes: ReadonlyArray<Actors>,
  random: () => number,
  summary: ChaosSummary,
): Promise<void> {
  const delivery: Delivery = {
    seed: randomInt(random, 0, 2 ** 31 - 1),
    lanes: randomInt(random, 1, 10),
    maxBatch: randomInt(random, 1, 12),
    duplicateRate: [0, 0.2, 0.5][randomInt(random, 0, 2)] as number,
    lambdaShapeRate: 0.5,
  };
  const first = (batch: unknown[]) => ({ batchItemFailures: [{ itemIdentifier: (batch[0] as _Record).dynamodb?.SequenceNumber as string }] });
  await deliver(records, delivery, async (batch) => {
    const reacting = processes[randomInt(random, 0, processes.length - 1)] as Actors;
    if (random() >= 0.15) {
      try {
        const failed = [
          ...(await reacting.reaction.processBatch(batch, { logger: false })).response.batchItemFailures,
          ...(await reacting.workflow.processBatch(batch, { logger: false })).response.batchItemFailures,
        ];
        // Delivered again from the earliest record either failed on.
        const position = (id: string) => batch.findIndex((record) => (record as _Record).dynamodb?.SequenceNumber === id);
        const earliest = failed.sort((a, b) => position(a.itemIdentifier) - position(b.itemIdentifier))[0];
        return { batchItemFailures: earliest === undefined ? [] : [earliest] };
      } catch {
        // A rejected invocation: Lambda delivers its whole batch again.
        return first(batch);
      }
    }
    summary.callsCutShort++;
    const stop = new AbortController();
    const cut = setTimeout(() => stop.abort(new Error('killed')), randomInt(random, 0, 40));
    try {
      await Promise.all([
        reacting.reaction.processBatch(batch, { logger: false, signal: stop.signal }),
        reacting.workflow.processBatch(batch, { logger: false, signal: stop.signal }),
      ]);
    } catch {
      // Killed: whatever the call did, its batch is delivered again.
    } finally {
      clearTimeout(cut);
    }
    return first(batch);
  });
}

/**
 * Retries every parked instance until none is left (a faulted replay stays parked for the next round);
 * they are listed by `listing`, the same owner on a clean client: the check must not fail for its own reads.
 */
async function retryAllParked(owner: Reaction, listing: Reaction, summary: ChaosSummary): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const parked: ParkedRow[] = [];
    for await (const row of listing.parkedRows()) parked.push(row);
    if (round === 0) summary.rowsParked += parked.length;
    if (parked.length === 0) return;
    await owner.retryParked().catch(() => undefined);
  }
  throw new Error(`${owner.name}: instances stayed parked after 20 rounds of retryParked`);
}

/** Sweeps the due timers until none is left, the first sweeps concurrent; resolves how many fired. */
async function sweepAll(reacting: Actors, writer: Actors, random: () => number): Promise<number> {
  const owners: TimerOwner[] = [reacting.reaction, reacting.workflow];
  const sweep = () => sweepTimers({ timers: reacting.timers, owners, logger: false }).catch(() => ({ fired: 0 }));
  let fired = (await Promise.all(Array.from({ length: randomInt(random, 1, 3) }, sweep))).reduce((sum, result) => sum + result.fired, 0);
  for (let round = 0; round < 20; round++) {
    // This schedule's own: another's that failed half-way may have left some in the world's table.
    let due = 0;
    for await (const timer of writer.timers.due()) if (owners.some((owner) => owner.name === timer.owner)) due++;
    if (due === 0) return fired;
    fired += (await sweep()).fired;
  }
  throw new Error('timers stayed due after 20 sweeps');
}

/** Runs one seeded schedule of the reactions world and returns what it did and found. */
export async function runReactionsSchedule(
  config: ClientConfig,
  client: DynamoDBClient,
  world: ReactionsWorld,
  options: ReactionsScheduleOptions,
): Promise<ChaosSummary> {
  const { seed } = options;
  const summary = new ChaosSummary();
  summary.runs = 1;
  summary.reactionSchedules = 1;
  const random = seededRandom(seed);
  const faulty = new DynamoDBClient({ ...config, retryStrategy: quickRetries(2) });
  const faults = injectFaults(faulty, { seed: seed ^ 0x5eed, rate: options.faultRate, readModelTables: [world.reactionsTable] });
  // Besides: a quarter of all writes of every kind lose their answer once applied (a crash between a
  // command's transaction and its answer), so that every schedule meets many.
  const lostAnswers = injectFaults(faulty, { seed: seed ^ 0x1057, rate: LOST_ANSWER_RATE, kinds: ['lostResponse'], commands: WRITES });
  const problem = (text: string) => summary.problem(`reactions seed ${seed}: ${text}`);
  try {
    const clock = new TestClock();
    const fault = { fixed: false };
    const suffix = `${seed}`;
    const writer = actors(client, world, suffix, clock, fault);
    const reacting = actors(faulty, world, suffix, clock, fault);
    // A second process of the same reaction and workflow, taking calls too.
    const processes = [reacting, actors(faulty, world, suffix, clock, fault)];
    const expected = await writeWorkload(writer, random);
    const sources = [writer.orders.name, writer.streams.orders.name, writer.streams.payments.name];
    const early = await recordsOf(world, sources);
    summary.events += early.length;
    await deliverAll(early, processes, random, summary);
    fault.fixed = true;
    summary.poisonEvents += expected.poison;
    await retryAllParked(reacting.reaction, writer.reaction, summary);

    const beforeDue = await sweepTimers({ timers: writer.timers, owners: [writer.reaction, writer.workflow], logger: false });
    if (beforeDue.fired > 0) {
      summary.timersEarly += beforeDue.fired;
      problem(`${beforeDue.fired} timers fired before they were due`);
    }
    clock.advance(ITEM_TIMER_MS + randomInt(random, 1, 120_000));
    summary.timersFired += await sweepAll(reacting, writer, random);

    // Late payments reach completed checkouts (each recorded as ignored); everything is delivered again.
    for (const [n, checkout] of expected.checkouts.entries()) {
      for (let p = 0; p < checkout.late; p++) {
        await writer.streams.payments.append({ paymentId: `p-${n}-${p}` }, [{ type: 'PaymentReceived', data: { orderId: checkout.id, amount: 10 } }]);
        checkout.inputs++;
      }
    }
    const all = await recordsOf(world, sources);
    summary.events += all.length - early.length;
    await deliverAll(all, processes, random, summary);
    await retryAllParked(reacting.workflow, writer.workflow, summary);
    summary.timersFired += await sweepAll(reacting, writer, random);
    await checkEffects(writer, expected, summary, problem);
  } catch (error) {
    problem(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    summary.addFaults(faults.injected);
    summary.addFaults(lostAnswers.injected);
    faulty.destroy();
  }
  return summary;
}

/** Counts each expected effect in the targets: once is right, none is lost, more is doubled. */
function tallyAgainst(
  found: ReadonlyArray<string>,
  expected: ReadonlyArray<string>,
  what: string,
  summary: ChaosSummary,
  problem: (text: string) => void,
) {
  const counts = new Map<string, number>();
  for (const key of found) counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const key of expected) {
    const n = counts.get(key) ?? 0;
    summary.effectsChecked++;
    if (n === 0) {
      summary.effectsLost++;
      problem(`${what} ${key} never happened`);
    } else if (n > 1) {
      summary.effectsDoubled++;
      problem(`${what} ${key} happened ${n} times`);
    }
    counts.delete(key);
  }
  for (const [key, n] of counts) {
    summary.effectsDoubled += n;
    problem(`${what} ${key} happened ${n} times, for no event`);
  }
}

async function checkEffects(writer: Actors, expected: Expected, summary: ChaosSummary, problem: (text: string) => void): Promise<void> {
  const reserved: string[] = [];
  for (const sku of ['a', 'b', 't']) {
    const events = await writer.stock.read({ sku });
    const lastVersion = new Map<string, number>();
    for (const event of events) {
      if (event.type !== 'Reserved') continue;
      reserved.push(`${sku}:${event.data.orderId}@${event.data.version}`);
      // One source instance's effects on one target land in its version order.
      if ((lastVersion.get(event.data.orderId) ?? 0) > event.data.version) {
        summary.outOfOrder++;
        problem(`${sku}: ${event.data.orderId}@${event.data.version} reserved after a later version`);
      }
      lastVersion.set(event.data.orderId, event.data.version);
    }
  }
  tallyAgainst(reserved, expected.reservations, 'reservation', summary, problem);
  const fired = (await writer.stock.read({ sku: 'fired' })).flatMap((event) =>
    event.type === 'Reserved' ? [`${event.data.orderId}@${event.data.version}`] : [],
  );
  tallyAgainst(fired, expected.timers, 'timer', summary, problem);
  for (const checkout of expected.checkouts) {
    const shipped = (await writer.streams.shipments.read({ orderId: checkout.id })).map(() => checkout.id);
    tallyAgainst(shipped, checkout.paid ? [checkout.id] : [], 'shipment', summary, problem);
    const cancelled = (await writer.streams.orders.read({ orderId: checkout.id })).flatMap((event) =>
      event.type === 'OrderCancelled' ? [checkout.id] : [],
    );
    tallyAgainst(cancelled, checkout.paid ? [] : [checkout.id], 'cancellation', summary, problem);
    const recorded = (await writer.workflow.stream.read({ id: checkout.id })).filter(
      (event) => event.type === 'InputReceived' || event.type === 'InputIgnored',
    );
    summary.workflowInputs += recorded.length;
    if (recorded.length !== checkout.inputs) {
      summary.inputsMisrecorded++;
      problem(`checkout ${checkout.id} recorded ${recorded.length} inputs, expected ${checkout.inputs}`);
    }
  }
}
