/**
 * dynafold's quickstart: an order workload on an event store in DynamoDB.
 *
 *   npm start            # embedded DynamoDB Local, unless DYNAMODB_ENDPOINT or AWS settings say otherwise
 *
 * It creates an events table and a read-model table, runs orders through commands from concurrent
 * writers (conflicts are retried by reloading the order), prints a few orders' events and the timings,
 * and checks that every order's versions are contiguous. It exits non-zero when a check fails.
 */
import { ConcurrencyError, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { connect, type Connection } from './support/connect';
import {
  OrderRuleError,
  addItem,
  evolveOrder,
  newOrder,
  orderStream,
  orderSummaries,
  placeOrder,
  shipOrder,
  type Order,
  type OrderCommand,
  type OrderStream,
} from './support/orders';
import { createTable, deleteTables, uniqueTableName } from './support/tables';

const ORDERS = 20;
const ITEMS_PER_ORDER = 4;
const WRITERS = 8;
const SHOWN_ORDERS = 3;

interface Tables {
  readonly events: string;
  readonly views: string;
}

async function createTables(connection: Connection): Promise<Tables> {
  const events = await createTable(connection.client, eventsTableDefinition(uniqueTableName('events')));
  const views = await createTable(
    connection.client,
    readModelTableDefinition(uniqueTableName('views'), [orderSummaries(connection.client, 'placeholder')]),
  );
  console.log(`tables: events ${events.name} (with a stream), read models ${views.name} (OrderSummary, index byStatus)`);
  return { events: events.name, views: views.name };
}

/** One command of the workload: which order, and the decider. */
interface Job {
  readonly orderId: string;
  readonly decider: OrderCommand;
}

interface PhaseStats {
  readonly name: string;
  readonly commands: number;
  readonly events: number;
  readonly attempts: number;
  readonly ms: number;
}

/**
 * Runs jobs with `WRITERS` concurrent writers taking the next job as they finish one. Consecutive jobs
 * on one order therefore race each other: the losers' appends fail with a conflict, and `execute`
 * reloads the order, decides again and retries. `decide` runs once per attempt, which counts them.
 */
async function runPhase(Orders: OrderStream, name: string, jobs: ReadonlyArray<Job>): Promise<PhaseStats> {
  let next = 0;
  let attempts = 0;
  let events = 0;
  const started = performance.now();
  const writer = async () => {
    for (let job = jobs[next++]; job !== undefined; job = jobs[next++]) {
      const { decide } = job.decider;
      const counted: OrderCommand = { ...job.decider, decide: (order: Order, version: number) => (attempts++, decide?.(order, version) ?? []) };
      const result = await Orders.execute(job.orderId, counted, { attempts: 50 });
      events += result.events.length;
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  return { name, commands: jobs.length, events, attempts, ms: performance.now() - started };
}

function orderIds(): string[] {
  return Array.from({ length: ORDERS }, (_, index) => `order-${String(index + 1).padStart(2, '0')}`);
}

async function runWorkload(Orders: OrderStream, ids: ReadonlyArray<string>): Promise<PhaseStats[]> {
  const customers = ['ada', 'grace', 'edsger', 'barbara', 'alan'];
  const catalogue = [
    ['tea', 4.5],
    ['mug', 12],
    ['kettle', 39.9],
    ['biscuits', 2.25],
  ] as const;
  const place = ids.map((orderId, index) => ({ orderId, decider: placeOrder(customers[index % customers.length] as string) }));
  // All items of an order are queued back to back, so up to four writers work on one order at once.
  const add = ids.flatMap((orderId) =>
    Array.from({ length: ITEMS_PER_ORDER }, (_, item) => {
      const [sku, price] = catalogue[item % catalogue.length] as (typeof catalogue)[number];
      return { orderId, decider: addItem(sku, price) };
    }),
  );
  const ship = ids.map((orderId) => ({ orderId, decider: shipOrder() }));
  const phases: PhaseStats[] = [];
  for (const [name, jobs] of [['place', place], ['add items', add], ['ship', ship]] as const) {
    const stats = await runPhase(Orders, name, jobs);
    phases.push(stats);
    console.log(
      `  ${name.padEnd(10)} ${String(stats.commands).padStart(3)} commands  ${String(stats.events).padStart(3)} events  ` +
        `${String(stats.attempts - stats.commands).padStart(3)} conflicts retried  ${stats.ms.toFixed(0).padStart(5)} ms`,
    );
  }
  return phases;
}

/** What a retried, a refused and a stale write do, on an order of their own. */
async function showGuarantees(Orders: OrderStream, orderId: string): Promise<void> {
  await Orders.execute(orderId, placeOrder('ada'));
  const key = `${orderId}-gift-wrap`;
  const first = await Orders.execute(orderId, addItem('gift-wrap', 3), { idempotencyKey: key });
  const again = await Orders.execute(orderId, addItem('gift-wrap', 3), { idempotencyKey: key });
  console.log(`  idempotent retry: one command sent twice with key "${key}" -> appended once (v${first.version}; the retry answers v${again.version})`);
  await Orders.execute(orderId, shipOrder());
  try {
    await Orders.execute(orderId, addItem('late', 1));
  } catch (error) {
    if (!(error instanceof OrderRuleError)) throw error;
    console.log(`  rule refused:     ${error.message}; nothing appended`);
  }
  try {
    await Orders.append(orderId, [{ type: 'ItemAdded', data: { sku: 'stale', price: 1 } }], { expectedVersion: 1 });
  } catch (error) {
    if (!(error instanceof ConcurrencyError)) throw error;
    console.log(`  stale write:      append at expectedVersion 1 -> ${error.name} (${error.code}), the order is at v${error.actualVersion}`);
  }
}

async function printOrders(Orders: OrderStream, ids: ReadonlyArray<string>): Promise<void> {
  for (const orderId of ids) {
    const events = await Orders.read({ orderId });
    const { state } = await Orders.load(orderId, { initial: newOrder, evolve: evolveOrder });
    console.log(`  ${orderId}: ${state.status}, ${state.items} items, total ${state.total.toFixed(2)}`);
    for (const event of events) console.log(`    v${event.version} ${event.type.padEnd(12)} ${JSON.stringify(event.data)}`);
  }
}

/** Every stream's versions are 1..n without gaps or duplicates; every workload order went through its life. */
async function checkOrders(Orders: OrderStream, ids: ReadonlyArray<string>, others: ReadonlyArray<string>): Promise<string[]> {
  const problems: string[] = [];
  let total = 0;
  for (const orderId of [...ids, ...others]) {
    const versions = (await Orders.read({ orderId })).map((event) => event.version);
    total += versions.length;
    if (versions.length === 0 || !versions.every((version, index) => version === index + 1)) {
      problems.push(`${orderId}: versions [${versions.join(',')}] are not 1..n`);
    }
    const head = await Orders.version(orderId);
    if (head !== versions.length) problems.push(`${orderId}: the head is v${head}, but ${versions.length} events were read`);
  }
  for (const orderId of ids) {
    const { state } = await Orders.load(orderId, { initial: newOrder, evolve: evolveOrder });
    if (state.status !== 'shipped' || state.items !== ITEMS_PER_ORDER) problems.push(`${orderId}: ${state.status} with ${state.items} items`);
  }
  const count = ids.length + others.length;
  console.log(`  versions: ${count} streams, ${total} events, every stream contiguous from v1: ${problems.length === 0 ? 'yes' : 'NO'}`);
  console.log(`  orders:   ${ids.length} shipped with ${ITEMS_PER_ORDER} items each, each item applied exactly once: ${problems.length === 0 ? 'yes' : 'NO'}`);
  return problems;
}

async function main(): Promise<number> {
  const started = performance.now();
  const connection = await connect();
  console.log(`dynafold quickstart on ${connection.description}`);
  const created: string[] = [];
  try {
    const tables = await createTables(connection);
    created.push(tables.events, tables.views);
    const Orders = orderStream(connection.client, tables.events);
    const ids = orderIds();

    console.log(`\n${ORDERS} orders, ${ITEMS_PER_ORDER} items each, ${WRITERS} concurrent writers:`);
    const phases = await runWorkload(Orders, ids);
    const events = phases.reduce((sum, phase) => sum + phase.events, 0);
    const ms = phases.reduce((sum, phase) => sum + phase.ms, 0);
    const conflicts = phases.reduce((sum, phase) => sum + phase.attempts - phase.commands, 0);
    console.log(`  total      ${events} events in ${ms.toFixed(0)} ms = ${((events / ms) * 1000).toFixed(0)} events/s, ${conflicts} conflicts retried`);

    console.log('\nguarantees:');
    const demo = 'order-demo';
    await showGuarantees(Orders, demo);

    console.log(`\nthe first ${SHOWN_ORDERS} orders:`);
    await printOrders(Orders, ids.slice(0, SHOWN_ORDERS));

    console.log('\nchecks:');
    const problems = await checkOrders(Orders, ids, [demo]);
    for (const problem of problems) console.log(`  FAILED ${problem}`);
    console.log(`\n${problems.length === 0 ? 'OK' : 'FAILED'} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return problems.length === 0 ? 0 : 1;
  } finally {
    if (connection.persistent && process.env['KEEP_TABLES'] === undefined) await deleteTables(connection.client, created);
    await connection.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('quickstart failed:', error);
    process.exitCode = 1;
  },
);
