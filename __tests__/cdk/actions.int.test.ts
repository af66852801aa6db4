/**
 * The actions the constructs grant are the ones dynafold really sends: every request of a projector
 * (lambdaHandler, with gap reads, lost races, an outbox and a parked row), of the outbox relay and of a
 * change feed (runChangeFeed with DynamoCheckpointStore, a lease) is recorded with its table against
 * DynamoDB Local, and each must be among the actions granted on that table.
 */
import { CreateTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { Projection, eventsTableDefinition, lambdaHandler, readModelTableDefinition } from 'dynafold';
import { OutboxRelay, outboxTableDefinition } from 'dynafold/outbox';
import { Actions } from 'dynafold/cdk';
import { ChangeFeedConsumer, DynamoCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { waitFor, localFeed } from '../feed/support';
import { createTestTable, localConfig, uniqueName } from '../support/dynamo';
import { evolveSummary, initialSummary, orderSummaries } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../support/stream-records';

type Requests = Map<string, Set<string>>;

/** A client that records `dynamodb:<Operation>` per table for every request it sends. */
function recordingClient<C extends DynamoDBClient | DynamoDBStreamsClient>(
  client: C,
  requests: Requests,
  tableOf: (input: Record<string, unknown>) => string[],
): C {
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => async (args) => {
      const operation = `dynamodb:${(context.commandName ?? '').replace(/Command$/, '')}`;
      for (const table of tableOf(args.input as Record<string, unknown>)) {
        if (operation === 'dynamodb:TransactWriteItems') continue;
        requests.set(table, (requests.get(table) ?? new Set()).add(operation));
      }
      const items = (args.input as { TransactItems?: Array<Record<string, { TableName: string }>> }).TransactItems ?? [];
      for (const item of items) {
        for (const [kind, write] of Object.entries(item)) {
          const action = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' }[kind] ?? kind;
          requests.set(write.TableName, (requests.get(write.TableName) ?? new Set()).add(`dynamodb:${action}`));
        }
      }
      return next(args);
    },
    { step: 'initialize', name: `record-${Math.random()}` },
  );
  return client;
}

const tablesOf = (input: Record<string, unknown>): string[] => [
  ...(typeof input['TableName'] === 'string' ? [input['TableName']] : []),
  ...Object.keys((input['RequestItems'] as object | undefined) ?? {}),
  // The Streams API: GetRecords names its shard iterator, not the stream.
  ...(typeof input['StreamArn'] === 'string' || typeof input['ShardIterator'] === 'string' ? ['stream'] : []),
];

const setup = new DynamoDBClient(localConfig());
afterAll(() => setup.destroy());

async function tables() {
  const events = await createTestTable(setup, eventsTableDefinition, 'grants-events');
  const views = await createTestTable(setup, (name) => readModelTableDefinition(name, [orderSummaries(setup, name)]), 'grants-views');
  const outbox = await createTestTable(setup, outboxTableDefinition, 'grants-outbox');
  return {
    events: events.name,
    streamArn: events.streamArn as string,
    views: views.name,
    outbox: outbox.name,
    outboxStreamArn: outbox.streamArn as string,
  };
}

function projectionOn(client: DynamoDBClient, t: Awaited<ReturnType<typeof tables>>, model: string) {
  return new Projection({
    stream: orderStream(client, t.events),
    readModel: orderSummaries(client, t.views, model),
    key: (id) => ({ orderId: id.orderId }),
    initial: (id) => initialSummary(id.orderId),
    evolve: (state, event: OrderEvent) => {
      if (event.type === 'OrderPlaced' && event.data.customer === 'poison') throw new Error('poison');
      return evolveSummary(state, event);
    },
    checkpoint: 'version',
    poison: { park: { afterAttempts: 1 } },
    outbox: { table: t.outbox, message: (event: OrderEvent) => ({ type: event.type }) },
  });
}

async function appendOrders(t: Awaited<ReturnType<typeof tables>>): Promise<void> {
  const stream = orderStream(setup, t.events);
  for (const orderId of ['a', 'b', 'ab']) {
    await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: orderId === 'b' ? 'poison' : 'ada' } }]);
    await stream.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 's', price: 1 } }]);
  }
}

const granted = (actions: ReadonlyArray<string>) => new Set(actions);

test('lambdaHandler and the outbox relay send only what Projector and OutboxRelayFunction grant', async () => {
  const t = await tables();
  await appendOrders(t);
  const requests: Requests = new Map();
  const client = recordingClient(new DynamoDBClient(localConfig()), requests, tablesOf);
  try {
    const handler = lambdaHandler({ projections: { summaries: projectionOn(client, t, 'Granted') } });
    const records = insertsOnly(await readStreamRecords(t.streamArn)).map(asLambdaRecord);
    // Each order's second event first (gap reads), then every record on two lanes at once (lost races), then again.
    await handler({ Records: records.filter((_record, index) => index % 2 === 1) });
    await Promise.all([handler({ Records: records }), handler({ Records: [...records].reverse() })]);
    await handler({ Records: records });
    expect(requests.get(t.events)).toEqual(granted(Actions.projectorOnEvents));
    expect([...(requests.get(t.views) ?? [])].every((action) => granted(Actions.projectorOnRows).has(action))).toBe(true);
    expect(requests.get(t.views)?.has('dynamodb:UpdateItem')).toBe(true); // the poison row was parked
    expect(requests.get(t.outbox)).toEqual(granted(Actions.projectorOnOutbox));
    expect([...requests.keys()].sort()).toEqual([t.events, t.views, t.outbox].sort());

    requests.clear();
    const relay = new OutboxRelay({ client, table: t.outbox, publish: async () => undefined });
    const result = await relay.processBatch((await readStreamRecords(t.outboxStreamArn)).map(asLambdaRecord), { source: 'lambda' });
    expect(result.failures).toEqual([]);
    expect(requests.get(t.outbox)).toEqual(granted(Actions.relayOnOutbox));
    expect([...requests.keys()]).toEqual([t.outbox]);
  } finally {
    client.destroy();
  }
});

test('runChangeFeed with DynamoCheckpointStore sends only what ChangeFeedResources grants', async () => {
  const t = await tables();
  const checkpoints = uniqueName('grants-checkpoints');
  await setup.send(new CreateTableCommand(DynamoCheckpointStore.tableDefinition(checkpoints)));
  await setup.send(new UpdateTimeToLiveCommand(DynamoCheckpointStore.timeToLiveDefinition(checkpoints)));
  await appendOrders(t);
  const requests: Requests = new Map();
  const client = recordingClient(new DynamoDBClient(localConfig()), requests, tablesOf);
  const streams = recordingClient(new DynamoDBStreamsClient(localConfig()), requests, tablesOf);
  try {
    const feed = new ChangeFeedConsumer({
      ...localFeed,
      streamsClient: streams,
      streamArn: t.streamArn,
      consumer: 'granted',
      checkpoints: new DynamoCheckpointStore({ client, table: checkpoints }),
      pollIntervalMs: 50,
      lease: { durationMs: 5_000, renewEveryMs: 1_000 },
    });
    let applied = 0;
    const running = runChangeFeed(feed, {
      projections: { summaries: projectionOn(client, t, 'GrantedFeed') },
      onBatch: (result) => void (applied += result.response.batchItemFailures.length === 0 ? 1 : 0),
    });
    await waitFor(() => applied > 0 && (requests.get(t.outbox)?.size ?? 0) > 0, 20_000, 'the feed to project the orders');
    await feed.stop();
    await running;
    expect(requests.get('stream')).toEqual(granted(Actions.feedOnStream));
    expect([...(requests.get(checkpoints) ?? [])].every((action) => granted(Actions.feedOnCheckpoints).has(action))).toBe(true);
    expect([...(requests.get(t.events) ?? [])].every((action) => granted(Actions.projectorOnEvents).has(action))).toBe(true);
    expect([...(requests.get(t.views) ?? [])].every((action) => granted(Actions.projectorOnRows).has(action))).toBe(true);
    expect([...requests.keys()].sort()).toEqual(['stream', checkpoints, t.events, t.views, t.outbox].filter((table) => requests.has(table)).sort());
    expect(requests.has(checkpoints) && requests.has(t.views)).toBe(true);
  } finally {
    client.destroy();
    streams.destroy();
  }
});
