/**
 * Every long operation honours its AbortSignal: aborted before the call, it sends no request at all (a
 * middleware counts them on real clients) and rejects with the reason; aborted at a random point, it rejects
 * with the reason (or finishes first), and leaves nothing that misleads the next run, which completes the
 * work: backfill, rebuild, catchUp, retryParked, skipParked, replayFailure, runChangeFeed, OutboxRelay.drainAll.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import fc from 'fast-check';
import { ConfigurationError, Projection, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { OutboxRelay, outboxTableDefinition } from 'dynafold/outbox';
import { ChangeFeedConsumer, MemoryCheckpointStore, replayFailure, runChangeFeed } from 'dynafold/feed';
import { propertySettings } from './support/delivery';
import { createTestTable, localConfig, testClient } from './support/dynamo';
import { evolveSummary, foldSummary, initialSummary, orderSummaries } from './support/order-projection';
import { orderStream } from './support/orders';
import { countRequests } from './support/requests';
import { insertsOnly, readStreamRecords } from './support/stream-records';

const client = testClient();
const reason = new Error('the caller gave up');
const orderIds = ['aa', 'ab', 'ba'];
let eventsTable: string;
let streamArn: string;
let viewsTable: string;
let outboxTable: string;

/** Real clients whose requests are counted, and which abort `controller` just before their `nth` request when armed. */
function clients() {
  const dynamo = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
  const streams = new DynamoDBStreamsClient({ ...localConfig(), maxAttempts: 1 });
  let sent = 0;
  let armed: { nth: number; controller: AbortController } | undefined;
  for (const each of [dynamo, streams]) {
    (each.middlewareStack as DynamoDBClient['middlewareStack']).add(
      (next) => async (args) => {
        sent++;
        if (armed !== undefined && sent >= armed.nth) armed.controller.abort(reason);
        return next(args);
      },
      { step: 'initialize', name: 'abortAt' },
    );
  }
  return {
    dynamo,
    streams,
    requests: countRequests(dynamo),
    sent: () => sent,
    /** Aborts the returned signal just before the `nth` request from now. */
    abortAt(nth: number): AbortSignal {
      const controller = new AbortController();
      armed = { nth: sent + nth, controller };
      return controller.signal;
    },
    disarm: () => (armed = undefined),
    destroy: () => {
      dynamo.destroy();
      streams.destroy();
    },
  };
}
type Clients = ReturnType<typeof clients>;

let models = 0;
/** A projection of the orders into a model of its own (a fresh name), parking rows after one failure; `bug` makes its evolve throw. */
function projectionOn(on: DynamoDBClient, name = `Abort${++models}`, bug = false) {
  return new Projection({
    stream: orderStream(on, eventsTable),
    readModel: orderSummaries(on, viewsTable, name),
    name,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => {
      if (bug && event.version === 2) throw new Error('a bug');
      return evolveSummary(state, event);
    },
    checkpoint: 'version',
    poison: { park: { afterAttempts: 1 } },
  });
}

async function expectFolded(name: string): Promise<void> {
  const stream = orderStream(client, eventsTable);
  for (const orderId of orderIds) {
    const row = await orderSummaries(client, viewsTable, name).get({ orderId }, { consistent: true });
    expect(row).toMatchObject(foldSummary(orderId, await stream.read({ orderId })));
  }
}

/** Parks every order's row of a fresh model (its evolve throws at version 2); resolves the model's name. */
async function parkedModel(): Promise<string> {
  const name = `Parked${++models}`;
  await projectionOn(client, name, true).applyBatch(await allEvents());
  return name;
}

async function allEvents() {
  const stream = orderStream(client, eventsTable);
  return (await Promise.all(orderIds.map((orderId) => stream.read({ orderId })))).flat();
}

async function failureMessage(): Promise<unknown> {
  const records = insertsOnly(await readStreamRecords(streamArn));
  const first = records[0]?.dynamodb?.SequenceNumber as string;
  const last = records.at(-1)?.dynamodb?.SequenceNumber as string;
  const shardId = (records[0] as { shardId?: string }).shardId;
  const { DescribeStreamCommand } = await import('@aws-sdk/client-dynamodb-streams');
  const streams = new DynamoDBStreamsClient(localConfig());
  try {
    const described = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    const shard = shardId ?? described.StreamDescription?.Shards?.[0]?.ShardId;
    return { DDBStreamBatchInfo: { streamArn, shardId: shard, startSequenceNumber: first, endSequenceNumber: last, batchSize: records.length } };
  } finally {
    streams.destroy();
  }
}

/** Each long operation, run on `c` with `signal`; resolves the model whose rows it brings forward, if any. */
const operations: ReadonlyArray<[string, (c: Clients, signal: AbortSignal) => Promise<string | undefined>]> = [
  [
    'backfill',
    async (c, signal) => {
      const projection = projectionOn(c.dynamo);
      await projection.backfill({ signal, segments: 2 });
      return projection.name;
    },
  ],
  [
    'rebuild',
    async (c, signal) => {
      const projection = projectionOn(c.dynamo);
      await projection.rebuild({ orderId: 'aa' }, { signal });
      return undefined;
    },
  ],
  [
    'catchUp',
    async (c, signal) => {
      const projection = projectionOn(c.dynamo);
      await projection.catchUp({ orderId: 'aa' }, { signal });
      return undefined;
    },
  ],
  [
    'retryParked',
    async (c, signal) => {
      const name = await parkedModel();
      await projectionOn(c.dynamo, name).retryParked(undefined, { signal });
      return name;
    },
  ],
  [
    'skipParked',
    async (c, signal) => {
      const name = await parkedModel();
      await projectionOn(c.dynamo, name).skipParked({ orderId: 'aa' }, { signal });
      return undefined;
    },
  ],
  [
    'replayFailure',
    async (c, signal) => {
      const projection = projectionOn(c.dynamo);
      const result = await replayFailure(await failureMessage(), { streamsClient: c.streams, projections: { p: projection }, signal, logger: false });
      if (result.response.batchItemFailures.length > 0) throw new Error('replay incomplete');
      return projection.name;
    },
  ],
  [
    'runChangeFeed',
    async (c, signal) => {
      const projection = projectionOn(c.dynamo);
      const feed = new ChangeFeedConsumer({
        streamsClient: c.streams,
        streamArn,
        checkpoints: new MemoryCheckpointStore(),
        pollIntervalMs: 20,
        startingPosition: 'TRIM_HORIZON',
      });
      await runChangeFeed(feed, { projections: { p: projection }, signal, stopWhenCaughtUp: true, logger: false });
      return projection.name;
    },
  ],
  [
    'OutboxRelay.drainAll',
    async (c, signal) => {
      const relay = new OutboxRelay({ client: c.dynamo, table: outboxTable, publish: async () => undefined });
      await relay.drainAll({ signal });
      return undefined;
    },
  ],
];

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'aborted-events');
  eventsTable = events.name;
  streamArn = events.streamArn as string;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'aborted-views')).name;
  outboxTable = (await createTestTable(client, outboxTableDefinition, 'aborted-outbox')).name;
  const stream = orderStream(client, eventsTable);
  for (const orderId of orderIds) {
    await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: orderId } }]);
    await stream.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }]);
  }
});
afterAll(() => client.destroy());

test.each(operations)('%s with a signal aborted before the call sends no request and rejects with the reason', async (_name, run) => {
  const c = clients();
  try {
    // Set-up (a parked row) is sent on the clean client: the counted one sends only what the operation does.
    await expect(run(c, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(c.sent()).toBe(0);
  } finally {
    c.destroy();
  }
});

test('an aborted backfill saves nothing that misleads the next run: another segment count starts afresh unless a page was done, and `resumed` says whether one was', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), async (nth, first, second) => {
      const c = clients();
      try {
        const name = `Backfill${++models}`;
        let pagesDone = 0;
        const run = projectionOn(c.dynamo, name).backfill({
          signal: c.abortAt(nth),
          segments: first,
          pageSize: 2,
          progressIntervalMs: 0,
          onProgress: (progress) => void (pagesDone += progress.done ? 0 : 1),
        });
        const finished = await run.then(
          () => true,
          (error: unknown) => {
            expect(error).toBe(reason);
            return false;
          },
        );
        c.disarm();
        const again = projectionOn(client, name);
        if (finished) {
          expect((await again.backfill({ segments: second })).resumed).toBe(false);
        } else if (first !== second && pagesDone > 0) {
          await expect(again.backfill({ segments: second })).rejects.toBeInstanceOf(ConfigurationError);
          expect((await again.backfill({ segments: first })).resumed).toBe(true);
        } else {
          expect((await again.backfill({ segments: second })).resumed).toBe(first === second && pagesDone > 0);
        }
        await expectFolded(name);
      } finally {
        c.destroy();
      }
    }),
    propertySettings(12),
  );
}, 600_000);

/** Runs `operation` on a model: aborted before the `nth` request of the counted clients, then again to the end on the clean client. */
const resumable: ReadonlyArray<[string, (on: Clients | undefined, name: string, signal: AbortSignal | undefined) => Promise<void>]> = [
  [
    'retryParked',
    async (on, name, signal) => {
      await projectionOn(on?.dynamo ?? client, name).retryParked(undefined, { signal });
    },
  ],
  [
    'replayFailure',
    async (on, name, signal) => {
      const projection = projectionOn(on?.dynamo ?? client, name);
      const streams = on?.streams ?? new DynamoDBStreamsClient(localConfig());
      try {
        await replayFailure(await failureMessage(), { streamsClient: streams, projections: { p: projection }, signal, logger: false });
      } finally {
        if (on === undefined) streams.destroy();
      }
    },
  ],
  [
    'runChangeFeed',
    async (on, name, signal) => {
      const streams = on?.streams ?? new DynamoDBStreamsClient(localConfig());
      try {
        const feed = new ChangeFeedConsumer({ streamsClient: streams, streamArn, checkpoints: new MemoryCheckpointStore(), pollIntervalMs: 20 });
        await runChangeFeed(feed, { projections: { p: projectionOn(on?.dynamo ?? client, name) }, signal, stopWhenCaughtUp: true, logger: false });
      } finally {
        if (on === undefined) streams.destroy();
      }
    },
  ],
];

test('retryParked, replayFailure and runChangeFeed aborted at a random point reject with the reason (or finish first), and the next run completes every row', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...resumable), fc.integer({ min: 1, max: 25 }), async ([operation, run], nth) => {
      const c = clients();
      try {
        const name = operation === 'retryParked' ? await parkedModel() : `Cut${++models}`;
        await run(c, name, c.abortAt(nth)).catch((error: unknown) => expect(error).toBe(reason));
        c.disarm();
        await run(undefined, name, undefined);
        await expectFolded(name);
      } finally {
        c.destroy();
      }
    }),
    propertySettings(12),
  );
}, 600_000);
