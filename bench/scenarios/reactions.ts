import { CreateTableCommand, DynamoDBClient, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { decoder, eventsTableDefinition } from 'dynafold';
import { ChangeFeedConsumer, DynamoCheckpointStore, runBatches, type ChangeFeedBatch, type PartialBatchResponse } from 'dynafold/feed';
import { Reaction, command, reactionsTableDefinition } from 'dynafold/reactions';
import { uniqueName } from '../../__tests__/support/dynamo';
import { reserve, shopOrders, stockStream } from '../../__tests__/support/shop';
import { billed, type Billed } from '../cost/billed';
import { clients, createTable, type Endpoint } from '../support/local';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { percentile, seededRandom, sleep } from '../support/stats';

const POLL_MS = 100;
/** Orders appended to, round robin; each order's items reserve its own stock instance. */
const ORDERS = 20;

/** One way of reacting: what it measured. */
interface Measured {
  readonly latencies: number[];
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly events: number;
}

/** Handles a feed's batch; calls `done(id)` once the command caused by the event `id` (`orderId@version`) is appended. */
type Handler = (batch: ChangeFeedBatch, done: (id: string) => void) => Promise<PartialBatchResponse>;

/**
 * Appends `appends` single-event appends (an item added to one of 20 orders, at 20–80 ms gaps) to a fresh
 * events table, read by a change feed whose batches go to `handler`; measures from each append's return
 * to the return of its command's append, and the units billed to the handler's client.
 */
async function measure(
  endpoint: Endpoint,
  appends: number,
  prefix: string,
  build: (client: DynamoDBClient, tables: { events: string; reactions: string }) => Handler,
): Promise<Measured> {
  const c = clients(endpoint);
  const handlerClient = new DynamoDBClient({ ...endpoint, maxAttempts: 10 });
  try {
    const events = await createTable(c.client, eventsTableDefinition, `${prefix}-events`);
    const reactions = await createTable(c.client, reactionsTableDefinition, `${prefix}-reactions`);
    const checkpoints = uniqueName(`${prefix}-checkpoints`);
    await c.client.send(new CreateTableCommand(DynamoCheckpointStore.tableDefinition(checkpoints)));
    const bill = await billed(handlerClient);
    const handler = build(handlerClient, { events: events.name, reactions: reactions.name });
    const orders = shopOrders(c.client, events.name, 'BenchOrder');
    const appended = new Map<string, number>();
    const latencies: number[] = [];
    const seen = new Set<string>();
    const done = (id: string) => {
      // Each event's command is timed once: when its append returned (a later report of it changes nothing).
      if (seen.has(id)) return;
      seen.add(id);
      const at = appended.get(id);
      if (at !== undefined) latencies.push(performance.now() - at);
    };
    const feed = new ChangeFeedConsumer({
      streamsClient: c.streams,
      streamArn: events.streamArn,
      consumer: prefix,
      checkpoints: new DynamoCheckpointStore({ client: c.client, table: checkpoints }),
      pollIntervalMs: POLL_MS,
    });
    const running = runBatches(feed, (batch) => handler(batch, done));
    // Warm up: one event reacted to through the feed before measuring, then the bill starts afresh.
    await orders.append({ orderId: 'warm' }, [{ type: 'ItemAdded', data: { sku: 'warm', quantity: 1 } }]);
    await until(() => seen.has('warm@1'), 30_000, `${prefix}: the warm-up event was never reacted to`);
    bill.reset();
    const random = seededRandom(5);
    for (let i = 0; i < appends; i++) {
      const orderId = `o-${i % ORDERS}`;
      const { events: appendedEvents } = await orders.append({ orderId }, [{ type: 'ItemAdded', data: { sku: `sku-${orderId}`, quantity: 1 } }]);
      for (const event of appendedEvents) appended.set(`${orderId}@${event.version}`, performance.now());
      await sleep(20 + random() * 60);
    }
    await until(() => latencies.length >= appends, 30_000, `${prefix}: only ${latencies.length} of ${appends} events were reacted to`);
    await feed.stop();
    await running;
    return { latencies, ...units(bill), events: appends };
  } finally {
    handlerClient.destroy();
    c.destroy();
  }
}

function units(bill: Billed): { writeUnits: number; readUnits: number } {
  return { writeUnits: bill.writeUnits, readUnits: bill.readUnits };
}

async function until(condition: () => boolean, timeoutMs: number, failure: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > timeoutMs) throw new Error(failure);
    await sleep(20);
  }
}

/** dynafold: a `Reaction` whose effect is the command, delivered by its own `processBatch`. */
const withReaction = (client: DynamoDBClient, tables: { events: string; reactions: string }): Handler => {
  const orders = shopOrders(client, tables.events, 'BenchOrder');
  const stock = stockStream(client, tables.events, 'BenchStock');
  const reaction = new Reaction({
    name: 'reserve',
    streams: [orders],
    client,
    table: tables.reactions,
    react: (event) => (event.type === 'ItemAdded' ? command(stock, { sku: event.data.sku }, reserve(event.streamId, event.version, 1)) : undefined),
  });
  // The command's append returns with the transaction that writes it with the progress: timed there, as
  // the hand-written handler's `execute` is timed when it returns (not when the whole batch is done).
  let timed: ((id: string) => void) | undefined;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'TransactWriteItemsCommand') {
        for (const { Put: put } of (args.input as TransactWriteItemsCommandInput).TransactItems ?? []) {
          const source = put?.TableName === tables.reactions ? put.Item?.['source']?.S : undefined;
          const version = put?.Item?.['version']?.N;
          if (source !== undefined && version !== undefined) timed?.(`${source.slice(source.indexOf('#') + 1)}@${version}`);
        }
      }
      return result;
    },
    { step: 'build', name: 'benchReactionTimed' },
  );
  return async (batch, done) => {
    timed = done;
    const { response, outcomes } = await reaction.processBatch(batch.records, { logger: false });
    for (const outcome of outcomes) for (const event of outcome.applied) done(`${event.streamId}@${event.version}`);
    return response;
  };
};

/**
 * The hand-written handler a user writes today: decode each record, and for each event run the command
 * with `execute` and an idempotency key of the event (so that a redelivered record does not reserve twice
 * while the key lives), one event after the other.
 */
const byHand = (client: DynamoDBClient, tables: { events: string }): Handler => {
  const orders = shopOrders(client, tables.events, 'BenchOrder');
  const stock = stockStream(client, tables.events, 'BenchStock');
  const decode = decoder({ orders });
  return async (batch, done) => {
    for (const record of batch.records) {
      const decoded = decode(record.dynamodb?.NewImage);
      if (decoded?.stream !== 'orders') continue;
      for (const event of decoded.events) {
        if (event.type !== 'ItemAdded') continue;
        await stock.execute({ sku: event.data.sku }, reserve(event.streamId, event.version, 1), {
          idempotencyKey: `${orders.name}#${event.streamId}@${event.version}`,
        });
        done(`${event.streamId}@${event.version}`);
      }
    }
    return { batchItemFailures: [] };
  };
};

/**
 * A reaction against the hand-written handler, one after the other on the same DynamoDB Local: latency
 * from a source append to its command's append, and units billed per reacted event.
 */
export const reactions: Scenario = {
  name: 'reactions',
  title: 'Reaction: source append → command append, against execute with idempotency keys',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const appends = context.quick ? 40 : 300;
    const hand = await measure(context.endpoint, appends, 'react-hand', byHand);
    const dynafold = await measure(context.endpoint, appends, 'react-dynafold', withReaction);
    const rows: Row[] = [];
    for (const p of [50, 99]) {
      const ours = percentile(dynafold.latencies, p);
      const theirs = percentile(hand.latencies, p);
      rows.push({
        scenario: 'reactions',
        measure: `p${p} ms, source append → command append`,
        dynafold: ours,
        baseline: theirs,
        against: 'execute + idempotency key',
        ratio: ours / theirs,
        ...(p === 50 ? { target: '≤ 1.00×', pass: ours <= theirs } : {}),
      });
    }
    for (const kind of ['writeUnits', 'readUnits'] as const) {
      const ours = dynafold[kind] / dynafold.events;
      const theirs = hand[kind] / hand.events;
      rows.push({
        scenario: 'reactions',
        measure: `billed ${kind === 'writeUnits' ? 'write' : 'read'} units / reacted event`,
        dynafold: ours,
        baseline: theirs,
        against: 'execute + idempotency key',
        ratio: ours / theirs,
        target: '≤ 1.00×',
        pass: ours <= theirs,
      });
    }
    return {
      rows,
      notes: [
        `${appends} single-event appends (an item of one of ${ORDERS} orders, each reserving its own stock instance) at 20–80 ms gaps, read by a change feed (pollIntervalMs ${POLL_MS}); the Reaction's processBatch against a handler that runs execute with the event's idempotency key per event; latency from the source append's return to the command's append's return (for the Reaction, its transaction's with the progress, caught by a middleware on the handler's client); units AWS would bill the handler's client (bench/cost).`,
      ],
      details: {
        appends,
        dynafold: { ...dynafold, latencies: undefined, p50: percentile(dynafold.latencies, 50), p99: percentile(dynafold.latencies, 99) },
        hand: { ...hand, latencies: undefined, p50: percentile(hand.latencies, 50), p99: percentile(hand.latencies, 99) },
      },
    };
  },
};
