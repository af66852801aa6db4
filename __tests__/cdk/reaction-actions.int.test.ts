/**
 * The actions ReactionFunction, TimerSweep and TimerSchedules grant are the ones reactions really send:
 * every request of a workflow and a reaction run by lambdaHandler (gap reads, lost races, commands, an
 * outbox message, timers scheduled and cancelled, a parked event) and of a timer sweep firing a workflow's
 * timer is recorded with its table (or index) against DynamoDB Local, and each must be among the actions
 * granted there.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { eventsTableDefinition, lambdaHandler } from 'dynafold';
import { Actions } from 'dynafold/cdk';
import { outboxTableDefinition } from 'dynafold/outbox';
import { Reaction, message, reactionsTableDefinition, sweepTimers } from 'dynafold/reactions';
import { TestClock } from 'dynafold/testing';
import { PAYMENT_DUE_MS, checkoutStreams, checkoutWorkflow } from '../support/checkout';
import { createTestTable, localConfig } from '../support/dynamo';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../support/stream-records';

type Requests = Map<string, Set<string>>;

const TRANSACT_ACTIONS: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };

/** A client that records `dynamodb:<Operation>` per table (`<table>/index/<name>` for an index) for every request it sends. */
function recordingClient(requests: Requests): DynamoDBClient {
  const client = new DynamoDBClient(localConfig());
  const note = (table: string, action: string) => requests.set(table, (requests.get(table) ?? new Set()).add(action));
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const operation = `dynamodb:${(context.commandName ?? '').replace(/Command$/, '')}`;
      const tables = [
        ...(typeof input['TableName'] === 'string' ? [input['TableName']] : []),
        ...Object.keys((input['RequestItems'] as object | undefined) ?? {}),
      ];
      for (const table of tables) note(typeof input['IndexName'] === 'string' ? `${table}/index/${input['IndexName']}` : table, operation);
      for (const item of (input['TransactItems'] as Array<Record<string, { TableName: string }>> | undefined) ?? []) {
        for (const [kind, write] of Object.entries(item)) note(write.TableName, `dynamodb:${TRANSACT_ACTIONS[kind] ?? kind}`);
      }
      return next(args);
    },
    { step: 'initialize', name: 'record-requests' },
  );
  return client;
}

const setup = new DynamoDBClient(localConfig());
afterAll(() => setup.destroy());

const within = (sent: Set<string> | undefined, granted: ReadonlyArray<string>) => [...(sent ?? [])].filter((action) => !granted.includes(action));

test('a workflow and a reaction on lambdaHandler, and a timer sweep, send only what ReactionFunction and TimerSweep grant', async () => {
  const events = await createTestTable(setup, eventsTableDefinition, 'reaction-grants-events');
  const reactions = (await createTestTable(setup, reactionsTableDefinition, 'reaction-grants-reactions')).name;
  const outbox = (await createTestTable(setup, outboxTableDefinition, 'reaction-grants-outbox')).name;
  const tables = { events: events.name, reactions };
  const source = checkoutStreams(setup, tables.events);
  for (const orderId of ['o-1', 'o-2', 'o-3'])
    await source.orders.append({ orderId }, [{ type: 'OrderPlaced', data: { amount: orderId === 'o-3' ? -1 : 10 } }]);
  await source.payments.append({ paymentId: 'p-1' }, [{ type: 'PaymentReceived', data: { orderId: 'o-1', amount: 10 } }]);

  const requests: Requests = new Map();
  const client = recordingClient(requests);
  try {
    const clock = new TestClock();
    const streams = checkoutStreams(client, tables.events);
    const { workflow, timers } = checkoutWorkflow(client, tables, streams, clock);
    const notify = new Reaction({
      name: 'notify',
      streams: [streams.orders],
      client,
      table: reactions,
      poison: { park: { afterAttempts: 1 } },
      logger: {}, // the parking is expected
      react: (event) => {
        if (event.type === 'OrderPlaced' && event.data.amount < 0) throw new Error('a negative amount');
        return message(outbox, { type: event.type, orderId: event.streamId });
      },
    });
    const handler = lambdaHandler({ projections: [workflow, notify] });
    const records = insertsOnly(await readStreamRecords(events.streamArn as string)).map(asLambdaRecord);
    await handler({ Records: records.filter((_record, index) => index % 2 === 1) });
    await Promise.all([handler({ Records: records }), handler({ Records: [...records].reverse() })]);
    expect((await streams.shipments.read({ orderId: 'o-1' })).map((event) => event.type)).toEqual(['ShipmentRequested']);
    expect(requests.get(reactions)?.has('dynamodb:UpdateItem')).toBe(true); // the poison instance was parked
    expect(within(requests.get(tables.events), Actions.reactionOnEvents)).toEqual([]);
    expect(within(requests.get(reactions), Actions.reactionOnProgress)).toEqual([]);
    expect(within(requests.get(outbox), Actions.projectorOnOutbox)).toEqual([]);
    expect([...requests.keys()].sort()).toEqual([tables.events, reactions, outbox].sort());

    requests.clear();
    clock.advance(PAYMENT_DUE_MS + 60_000);
    expect(await sweepTimers({ timers, owners: [workflow], logger: false })).toMatchObject({ fired: 2 });
    expect((await streams.orders.read({ orderId: 'o-2' })).map((event) => event.type)).toEqual(['OrderPlaced', 'OrderCancelled']);
    const index = `${reactions}/index/dueTimers`;
    expect(within(requests.get(index), Actions.timersOnDueIndex)).toEqual([]);
    expect(within(requests.get(reactions), Actions.timersOnTable)).toEqual([]);
    expect(within(requests.get(tables.events), Actions.reactionOnEvents)).toEqual([]);
    expect([...requests.keys()].sort()).toEqual([tables.events, reactions, index].sort());
  } finally {
    client.destroy();
  }
});
