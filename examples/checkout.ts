/**
 * The checkout workflow on DynamoDB: an order is placed, paid within 30
 * minutes and shipped, or cancelled (examples/snippets/reactions/).
 * The events' real stream records are delivered as Lambda delivers them
 * (through lambdaHandler, shuffled, then all again in reverse), a test
 * clock moves past the 30 minutes, and a timer sweep cancels the order
 * nobody paid. Exits non-zero if a check fails.
 *
 *   npx tsx examples/checkout.ts
 *
 * Uses the DynamoDB at DYNAMODB_ENDPOINT if set, else an embedded
 * DynamoDB Local (see examples/support/connect.ts).
 */
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { eventsTableDefinition } from 'dynafold';
import { lambdaHandler } from 'dynafold/lambda';
import { readStreamRecords, toLambdaRecord } from 'dynafold/local';
import {
  reactionsTableDefinition,
  sweepTimers,
} from 'dynafold/reactions';
import { TestClock } from 'dynafold/testing';
import {
  PAYMENT_WINDOW_MS,
  checkoutStreams,
  checkoutWorkflow,
  type CheckoutStreams,
} from './snippets/reactions/checkout';
import { connect } from './support/connect';
import { seededRandom } from './support/random';
import {
  createTable,
  deleteTables,
  uniqueTableName,
} from './support/tables';

const MINUTE = 60_000;

async function main(): Promise<void> {
  const connection = await connect();
  const { client } = connection;
  const streamsClient = new DynamoDBStreamsClient(connection.config);
  console.log(`Checkout on ${connection.description}`);
  const names = {
    events: uniqueTableName('checkout-events'),
    reactions: uniqueTableName('checkout-reactions'),
  };
  try {
    const events = await createTable(
      client,
      eventsTableDefinition(names.events),
    );
    await createTable(
      client,
      reactionsTableDefinition(names.reactions),
    );
    const streams = checkoutStreams(client, names.events);
    // The test clock runs with the system's, plus what we move it by
    const clock = new TestClock();
    const { workflow, timers } = checkoutWorkflow(
      client,
      names,
      streams,
      { clock },
    );
    const handler = lambdaHandler({ projections: [workflow] });
    const deliver = async (label: string) => {
      const records = (
        await readStreamRecords(streamsClient, events.streamArn ?? '')
      ).map((record) => toLambdaRecord(record));
      const failed = [];
      const random = seededRandom(Date.now());
      for (const batch of [
        random.shuffle(records),
        [...records].reverse(),
      ]) {
        const answer = await handler({ Records: batch });
        failed.push(...answer.batchItemFailures);
      }
      console.log(
        `${label}: ${records.length} records delivered twice, ` +
          `${failed.length} failed`,
      );
    };

    const { Orders, Payments } = streams;
    await Orders.append({ orderId: 'o-1' }, [
      { type: 'OrderPlaced', data: { customer: 'ada', amount: 30 } },
    ]);
    await Orders.append({ orderId: 'o-2' }, [
      { type: 'OrderPlaced', data: { customer: 'bob', amount: 20 } },
    ]);
    await Payments.append({ paymentId: 'p-1' }, [
      { type: 'PaymentReceived', data: { orderId: 'o-1', amount: 30 } },
    ]);
    // o-3 is paid before it is placed
    await Payments.append({ paymentId: 'p-3' }, [
      { type: 'PaymentReceived', data: { orderId: 'o-3', amount: 15 } },
    ]);
    await Orders.append({ orderId: 'o-3' }, [
      { type: 'OrderPlaced', data: { customer: 'cy', amount: 15 } },
    ]);
    await deliver('orders and payments');

    const sweep = async (label: string) => {
      const runs = await Promise.all(
        [1, 2].map(() => sweepTimers({ timers, owners: [workflow] })),
      );
      const fired = runs.reduce((sum, run) => sum + run.fired, 0);
      console.log(
        `${label}: two sweeps at once fired ${fired} timer(s)`,
      );
    };
    clock.advance(PAYMENT_WINDOW_MS - MINUTE);
    await sweep('29 minutes on');
    clock.advance(2 * MINUTE);
    await sweep('31 minutes on');
    await sweep('and again');

    // o-2's payment comes too late: recorded as ignored
    await Payments.append({ paymentId: 'p-2' }, [
      { type: 'PaymentReceived', data: { orderId: 'o-2', amount: 20 } },
    ]);
    await deliver('a late payment');

    const problems: string[] = [];
    for (const orderId of ['o-1', 'o-2', 'o-3']) {
      problems.push(...(await report(orderId, streams, workflow)));
    }
    if (problems.length > 0) {
      for (const problem of problems) console.log(`FAIL ${problem}`);
      process.exitCode = 1;
      return;
    }
    console.log('OK: each order shipped or cancelled, once');
  } finally {
    if (connection.persistent)
      await deleteTables(client, [names.events, names.reactions]);
    streamsClient.destroy();
    await connection.close();
  }
}

/** Prints an order's streams; the problems found, each a line. */
async function report(
  orderId: string,
  { Orders, Shipments }: CheckoutStreams,
  workflow: ReturnType<typeof checkoutWorkflow>['workflow'],
): Promise<string[]> {
  const types = (list: ReadonlyArray<{ type: string }>) =>
    list.map((event) => event.type).join(', ') || '-';
  const order = await Orders.read({ orderId });
  const shipment = await Shipments.read({ orderId });
  const instance = await workflow.stream.read({ id: orderId });
  console.log(`${orderId} Order:    ${types(order)}`);
  console.log(`${orderId} Shipment: ${types(shipment)}`);
  console.log(`${orderId} Checkout: ${types(instance)}`);
  const cancelled = orderId === 'o-2';
  const expected = {
    order: cancelled ? 'OrderPlaced, OrderCancelled' : 'OrderPlaced',
    shipment: cancelled ? '-' : 'ShipmentRequested',
  };
  const problems: string[] = [];
  if (types(order) !== expected.order)
    problems.push(`${orderId}: expected Order ${expected.order}`);
  if (types(shipment) !== expected.shipment)
    problems.push(`${orderId}: expected Shipment ${expected.shipment}`);
  const inputs = instance.filter((event) =>
    ['InputReceived', 'InputIgnored'].includes(event.type),
  );
  const wanted = cancelled ? 3 : 2; // its events (and timer), once each
  if (inputs.length !== wanted)
    problems.push(`${orderId}: ${inputs.length} inputs, not ${wanted}`);
  return problems;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
