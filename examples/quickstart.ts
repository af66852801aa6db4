/**
 * dynafold's quickstart: an order workload on an event store in DynamoDB, projected into read models.
 *
 *   npm start            # embedded DynamoDB Local, unless DYNAMODB_ENDPOINT or AWS settings say otherwise
 *   SEED=42 npm start    # replays the simulated Lambda delivery schedule of seed 42
 *
 * It creates an events table (with a stream), a read-model table and a checkpoint table, runs orders
 * through commands from concurrent writers (conflicts are retried by reloading the order), prints a few
 * orders' events and the timings, and checks that every order's versions are contiguous. Then it
 * projects the stream into two read models: with `runChangeFeed` (the change feed of a service), and
 * through `lambdaHandler` fed the way Lambda with ParallelizationFactor 10 delivers the stream's real
 * records. It prints the rows and checks them against the store. It exits non-zero when a check fails.
 */
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  ConcurrencyError,
  eventsTableDefinition,
  readModelTableDefinition,
} from 'dynafold';
import { DynamoCheckpointStore } from 'dynafold/feed';
import { checkReadModel, readHistories } from './support/checks';
import { connect, type Connection } from './support/connect';
import {
  OrderRuleError,
  addItem,
  evolveOrder,
  newOrder,
  orderStream,
  orderSummaries,
  placeOrder,
  type OrderSummaries,
  shipOrder,
  type Order,
  type OrderCommand,
  type OrderStream,
} from './support/orders';
import {
  FEED_MODEL,
  LAMBDA_MODEL,
  projectByFeed,
  projectByLambda,
  type ProjectionContext,
} from './support/projections';
import { seedFromEnv } from './support/random';
import {
  createTable,
  deleteTables,
  uniqueTableName,
} from './support/tables';

const ORDERS = 20;
const ITEMS_PER_ORDER = 4;
const WRITERS = 8;
const SHOWN_ORDERS = 3;

interface Tables {
  readonly events: string;
  readonly views: string;
  readonly checkpoints: string;
  readonly streamArn: string;
}

async function createTables(
  connection: Connection,
  created: string[],
): Promise<Tables> {
  const events = await createTable(
    connection.client,
    eventsTableDefinition(uniqueTableName('events')),
  );
  created.push(events.name);
  const views = await createTable(
    connection.client,
    readModelTableDefinition(uniqueTableName('views'), [
      orderSummaries(connection.client, 'placeholder'),
    ]),
  );
  created.push(views.name);
  const checkpoints = await createTable(
    connection.client,
    DynamoCheckpointStore.tableDefinition(
      uniqueTableName('checkpoints'),
    ),
  );
  created.push(checkpoints.name);
  if (events.streamArn === undefined)
    throw new Error(`The events table ${events.name} has no stream`);
  console.log(`tables: events ${events.name} (with a stream)`);
  console.log(
    `        read models ${views.name} (${FEED_MODEL} and ${LAMBDA_MODEL}, index byStatus)`,
  );
  console.log(`        feed checkpoints ${checkpoints.name}`);
  return {
    events: events.name,
    views: views.name,
    checkpoints: checkpoints.name,
    streamArn: events.streamArn,
  };
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
async function runPhase(
  Orders: OrderStream,
  name: string,
  jobs: ReadonlyArray<Job>,
): Promise<PhaseStats> {
  let next = 0;
  let attempts = 0;
  let events = 0;
  const started = performance.now();
  const writer = async () => {
    for (
      let job = jobs[next++];
      job !== undefined;
      job = jobs[next++]
    ) {
      const { decide } = job.decider;
      const counted: OrderCommand = {
        ...job.decider,
        decide: (order: Order, version: number) => (
          attempts++,
          decide?.(order, version) ?? []
        ),
      };
      const result = await Orders.execute(job.orderId, counted, {
        retry: { attempts: 50 },
      });
      events += result.events.length;
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  return {
    name,
    commands: jobs.length,
    events,
    attempts,
    ms: performance.now() - started,
  };
}

function orderIds(): string[] {
  return Array.from(
    { length: ORDERS },
    (_, index) => `order-${String(index + 1).padStart(2, '0')}`,
  );
}

async function runWorkload(
  Orders: OrderStream,
  ids: ReadonlyArray<string>,
): Promise<PhaseStats[]> {
  const customers = ['ada', 'grace', 'edsger', 'barbara', 'alan'];
  const catalogue = [
    ['tea', 4.5],
    ['mug', 12],
    ['kettle', 39.9],
    ['biscuits', 2.25],
  ] as const;
  const place = ids.map((orderId, index) => ({
    orderId,
    decider: placeOrder(customers[index % customers.length] as string),
  }));
  // All items of an order are queued back to back, so up to four writers work on one order at once.
  const add = ids.flatMap((orderId) =>
    Array.from({ length: ITEMS_PER_ORDER }, (_, item) => {
      const [sku, price] = catalogue[
        item % catalogue.length
      ] as (typeof catalogue)[number];
      return { orderId, decider: addItem(sku, price) };
    }),
  );
  const ship = ids.map((orderId) => ({
    orderId,
    decider: shipOrder(),
  }));
  const phases: PhaseStats[] = [];
  for (const [name, jobs] of [
    ['place', place],
    ['add items', add],
    ['ship', ship],
  ] as const) {
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
async function showGuarantees(
  Orders: OrderStream,
  orderId: string,
): Promise<void> {
  await Orders.execute(orderId, placeOrder('ada'));
  const key = `${orderId}-gift-wrap`;
  const first = await Orders.execute(orderId, addItem('gift-wrap', 3), {
    idempotencyKey: key,
  });
  const again = await Orders.execute(orderId, addItem('gift-wrap', 3), {
    idempotencyKey: key,
  });
  console.log(
    `  idempotent retry: one command sent twice with key "${key}" -> appended once (v${first.version}; the retry answers v${again.version})`,
  );
  await Orders.execute(orderId, shipOrder());
  try {
    await Orders.execute(orderId, addItem('late', 1));
  } catch (error) {
    if (!(error instanceof OrderRuleError)) throw error;
    console.log(
      `  rule refused:     ${error.message}; nothing appended`,
    );
  }
  try {
    await Orders.append(
      orderId,
      [{ type: 'ItemAdded', data: { sku: 'stale', price: 1 } }],
      { expectedVersion: 1 },
    );
  } catch (error) {
    if (!(error instanceof ConcurrencyError)) throw error;
    console.log(
      `  stale write:      append at expectedVersion 1 -> ${error.name} (${error.code}), the order is at v${error.actualVersion}`,
    );
  }
}

async function printOrders(
  Orders: OrderStream,
  ids: ReadonlyArray<string>,
): Promise<void> {
  for (const orderId of ids) {
    const events = await Orders.read({ orderId });
    const { state } = await Orders.load(orderId, {
      initial: newOrder,
      evolve: evolveOrder,
    });
    console.log(
      `  ${orderId}: ${state.status}, ${state.items} items, total ${state.total.toFixed(2)}`,
    );
    for (const event of events)
      console.log(
        `    v${event.version} ${event.type.padEnd(12)} ${JSON.stringify(event.data)}`,
      );
  }
}

/** Every stream's versions are 1..n without gaps or duplicates; every workload order went through its life. */
async function checkOrders(
  Orders: OrderStream,
  ids: ReadonlyArray<string>,
  others: ReadonlyArray<string>,
): Promise<string[]> {
  const problems: string[] = [];
  let total = 0;
  for (const orderId of [...ids, ...others]) {
    const versions = (await Orders.read({ orderId })).map(
      (event) => event.version,
    );
    total += versions.length;
    if (
      versions.length === 0 ||
      !versions.every((version, index) => version === index + 1)
    ) {
      problems.push(
        `${orderId}: versions [${versions.join(',')}] are not 1..n`,
      );
    }
    const head = await Orders.version(orderId);
    if (head !== versions.length)
      problems.push(
        `${orderId}: the head is v${head}, but ${versions.length} events were read`,
      );
  }
  for (const orderId of ids) {
    const { state } = await Orders.load(orderId, {
      initial: newOrder,
      evolve: evolveOrder,
    });
    if (state.status !== 'shipped' || state.items !== ITEMS_PER_ORDER)
      problems.push(
        `${orderId}: ${state.status} with ${state.items} items`,
      );
  }
  const count = ids.length + others.length;
  console.log(
    `  versions: ${count} streams, ${total} events, every stream contiguous from v1: ${problems.length === 0 ? 'yes' : 'NO'}`,
  );
  console.log(
    `  orders:   ${ids.length} shipped with ${ITEMS_PER_ORDER} items each, each item applied exactly once: ${problems.length === 0 ? 'yes' : 'NO'}`,
  );
  return problems;
}

/** A few rows of both models side by side, and a page of the byStatus index. */
async function printReadModels(
  byFeed: OrderSummaries,
  byLambda: OrderSummaries,
  orderIds: ReadonlyArray<string>,
): Promise<void> {
  console.log(
    `  ${'order'.padEnd(10)} ${'customer'.padEnd(9)} ${'status'.padEnd(8)} items   total  version  ${LAMBDA_MODEL}`,
  );
  for (const orderId of orderIds) {
    const row = await byFeed.get({ orderId }, { consistent: true });
    const other = await byLambda.get({ orderId }, { consistent: true });
    if (row === undefined) {
      console.log(`  ${orderId.padEnd(10)} (no row)`);
      continue;
    }
    const same =
      other !== undefined &&
      (
        ['customer', 'status', 'items', 'total', 'version'] as const
      ).every((field) => other[field] === row[field]);
    console.log(
      `  ${orderId.padEnd(10)} ${row.customer.padEnd(9)} ${row.status.padEnd(8)} ${String(row.items).padStart(5)} ${row.total.toFixed(2).padStart(7)} ` +
        `${String(row.version).padStart(8)}  ${same ? 'same row' : 'DIFFERS'}`,
    );
  }
  const page = await byFeed.query(
    'byStatus',
    { status: 'shipped' },
    { limit: 5 },
  );
  console.log(
    `  ${FEED_MODEL}.query('byStatus', { status: 'shipped' }, { limit: 5 }): ` +
      `${page.items.map((row) => row.orderId).join(', ')}${page.cursor === undefined ? '' : ' ... (page.cursor for the next page)'}`,
  );
  for (const model of [byFeed, byLambda]) {
    let shipped = 0;
    let cursor: string | undefined;
    do {
      const next = await model.query(
        'byStatus',
        { status: 'shipped' },
        { limit: 10, ...(cursor === undefined ? {} : { cursor }) },
      );
      shipped += next.items.length;
      cursor = next.cursor;
    } while (cursor !== undefined);
    console.log(
      `  ${model.name.padEnd(22)} shipped orders, every page: ${shipped}`,
    );
  }
}

/** Both projections, the rows, and the checks of both models against the store. */
async function runProjections(
  connection: Connection,
  Orders: OrderStream,
  tables: Tables,
  orderIds: ReadonlyArray<string>,
): Promise<string[]> {
  const streams = new DynamoDBStreamsClient(connection.config);
  try {
    const context: ProjectionContext = {
      client: connection.client,
      streams,
      clientConfig: connection.config,
      Orders,
      tables,
      streamArn: tables.streamArn,
    };
    const stored = [
      ...(await readHistories(Orders, orderIds)).values(),
    ].reduce((sum, events) => sum + events.length, 0);

    console.log(
      `\nprojection 1, the change feed: runChangeFeed into ${FEED_MODEL}`,
    );
    const byFeed = await projectByFeed(context, stored);
    const allIds = [...orderIds, ...byFeed.liveOrders];

    const seed = seedFromEnv();
    console.log(
      `\nprojection 2, Lambda simulated: lambdaHandler into ${LAMBDA_MODEL} (seed ${seed}; SEED=${seed} npm start replays the schedule)`,
    );
    const byLambda = await projectByLambda(context, seed);

    const feedModel = orderSummaries(
      connection.client,
      tables.views,
      FEED_MODEL,
    );
    const lambdaModel = orderSummaries(
      connection.client,
      tables.views,
      LAMBDA_MODEL,
    );
    console.log('\nread models:');
    await printReadModels(feedModel, lambdaModel, [
      ...allIds.slice(0, SHOWN_ORDERS),
      'order-demo',
      byFeed.liveOrders[0] as string,
    ]);

    console.log(
      '\nprojection checks (every row against a fold of its stream read from the store):',
    );
    const histories = await readHistories(Orders, allIds);
    return [
      ...(await checkReadModel(feedModel, histories, byFeed.applied)),
      ...(await checkReadModel(lambdaModel, histories, byLambda)),
    ];
  } finally {
    streams.destroy();
  }
}

async function main(): Promise<number> {
  const started = performance.now();
  const connection = await connect();
  console.log(`dynafold quickstart on ${connection.description}`);
  const created: string[] = [];
  try {
    const tables = await createTables(connection, created);
    const Orders = orderStream(connection.client, tables.events);
    const ids = orderIds();

    console.log(
      `\n${ORDERS} orders, ${ITEMS_PER_ORDER} items each, ${WRITERS} concurrent writers:`,
    );
    const phases = await runWorkload(Orders, ids);
    const events = phases.reduce((sum, phase) => sum + phase.events, 0);
    const ms = phases.reduce((sum, phase) => sum + phase.ms, 0);
    const conflicts = phases.reduce(
      (sum, phase) => sum + phase.attempts - phase.commands,
      0,
    );
    console.log(
      `  total      ${events} events in ${ms.toFixed(0)} ms = ${((events / ms) * 1000).toFixed(0)} events/s, ${conflicts} conflicts retried`,
    );

    console.log('\nguarantees:');
    const demo = 'order-demo';
    await showGuarantees(Orders, demo);

    console.log(`\nthe first ${SHOWN_ORDERS} orders:`);
    await printOrders(Orders, ids.slice(0, SHOWN_ORDERS));

    console.log('\nchecks:');
    const problems = await checkOrders(Orders, ids, [demo]);

    problems.push(
      ...(await runProjections(connection, Orders, tables, [
        ...ids,
        demo,
      ])),
    );
    for (const problem of problems) console.log(`  FAILED ${problem}`);
    console.log(
      `\n${problems.length === 0 ? 'OK' : 'FAILED'} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    return problems.length === 0 ? 0 : 1;
  } finally {
    if (
      connection.persistent &&
      process.env['KEEP_TABLES'] === undefined
    )
      await deleteTables(connection.client, created);
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
