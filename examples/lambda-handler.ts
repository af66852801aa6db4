/**
 * A Lambda function that projects the `Order` stream into `OrderSummary` rows, for a DynamoDB Streams
 * event source mapping on the events table.
 *
 * Deploy with handler `lambda-handler.handler` and:
 * - environment: `ORDER_EVENTS_TABLE`, `ORDER_VIEWS_TABLE` (the client takes region and credentials from
 *   the Lambda environment);
 * - on the mapping: `FunctionResponseTypes: ['ReportBatchItemFailures']`, and FilterCriteria
 *   `{ Filters: [{ Pattern: JSON.stringify(eventFilterPattern([OrderEvents])) }] }` so that only event
 *   INSERTs invoke the function (without it, other records are skipped, at the cost of an invocation);
 * - any BatchSize and ParallelizationFactor: out-of-order and repeated records are handled by the
 *   projection (gaps are read from the events table, redeliveries are skipped by the row's checkpoint).
 *
 * Run it here against an embedded DynamoDB Local, with real stream records:
 *
 *   npx tsx examples/lambda-handler.ts
 */
import {
  CreateTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type {
  DynamoDBBatchResponse,
  DynamoDBStreamEvent,
  DynamoDBStreamHandler,
} from 'aws-lambda';
import { z } from 'zod';
import {
  EventStream,
  Projection,
  ReadModel,
  eventsTableDefinition,
  readModelTableDefinition,
  type EventOf,
} from 'dynafold';
import { lambdaHandler, eventFilterPattern } from 'dynafold/lambda';

// The local run's output is no place for the SDK's notice about Node versions.
if (require.main === module)
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] =
    'true';

// ---- The domain: the Order stream and its summary rows ----

export const orderEvents = {
  OrderPlaced: z.object({ customer: z.string() }),
  ItemAdded: z.object({ sku: z.string(), price: z.number() }),
  OrderShipped: z.object({}),
};
export type OrderEvent = EventOf<typeof orderEvents>;

export function orderStream(client: DynamoDBClient, table: string) {
  return new EventStream({
    client,
    table,
    name: 'Order',
    streamId: ['orderId'],
    events: orderEvents,
  });
}

export const orderSummarySchema = z.object({
  orderId: z.string(),
  customer: z.string(),
  status: z.enum(['new', 'placed', 'shipped']),
  items: z.number().int(),
  total: z.number(),
  version: z.number().int(), // the checkpoint: the last stream version folded into the row
});
export type OrderSummary = z.infer<typeof orderSummarySchema>;

export function orderSummaries(client: DynamoDBClient, table: string) {
  return new ReadModel({
    client,
    table,
    name: 'OrderSummary',
    schema: orderSummarySchema,
    key: {
      pk: { field: 'pk', composite: ['orderId'] },
      sk: { field: 'sk', composite: [] },
    },
    indexes: {
      byStatus: {
        name: 'gsi1',
        pk: { field: 'gsi1pk', composite: ['status'] },
        sk: { field: 'gsi1sk', composite: ['orderId'] },
      },
    },
  });
}

export function orderSummaryProjection(
  stream: ReturnType<typeof orderStream>,
  readModel: ReturnType<typeof orderSummaries>,
) {
  return new Projection({
    // Its one name: the handler's outcomes, logs, spans and metrics.
    name: 'order-summaries',
    stream,
    readModel,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId): OrderSummary => ({
      orderId: streamId.orderId,
      customer: '',
      status: 'new',
      items: 0,
      total: 0,
      version: 0,
    }),
    evolve: (state, event): OrderSummary => {
      switch (event.type) {
        case 'OrderPlaced':
          return {
            ...state,
            customer: event.data.customer,
            status: 'placed',
          };
        case 'ItemAdded':
          return {
            ...state,
            items: state.items + 1,
            total: state.total + event.data.price,
          };
        case 'OrderShipped':
          return { ...state, status: 'shipped' };
      }
    },
    checkpoint: 'version',
  });
}

// ---- The handler ----

/** Where the handler's tables are. */
export interface HandlerTables {
  readonly events: string;
  readonly views: string;
}

/**
 * The Lambda handler for these tables: applies each batch to the summaries and returns the partial batch
 * response (the earliest record of every row that failed, and every record that failed to decode).
 */
export function createHandler(
  client: DynamoDBClient,
  tables: HandlerTables,
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  const Order = orderStream(client, tables.events);
  const summaries = orderSummaryProjection(
    Order,
    orderSummaries(client, tables.views),
  );
  return lambdaHandler({
    projections: [summaries],
    streams: { Order },
    onBatch: (result) => {
      for (const outcome of result.outcomes[summaries.name] ?? []) {
        // Side effects go here, once per event: `applied` is in version order, gap-filled events included.
        // Every outcome has one: a row that failed partway wrote (and lists) the events before the failure.
        // A side effect that fails can fail its records too: result.failedRecords.push(position).
        for (const event of outcome.applied) {
          if (event.type === 'OrderShipped')
            console.log(
              `notify: order ${event.streamId} shipped (v${event.version})`,
            );
        }
        if (outcome.status === 'failed') {
          console.error(
            `order ${outcome.streamId}: not projected, its records will be retried:`,
            outcome.error,
          );
          continue;
        }
        if (outcome.status === 'parked') continue; // only with a `poison: { park }` policy
        console.log(
          `order ${outcome.streamId}: applied [${outcome.applied.map((event) => event.version).join(', ')}], ` +
            `already had [${outcome.alreadyApplied.map((event) => event.version).join(', ')}], now at v${outcome.version}`,
        );
      }
      for (const failure of result.decodeFailures)
        console.error(
          `record ${failure.position} can't be decoded:`,
          failure.error,
        );
    },
  });
}

export const handler = createHandler(new DynamoDBClient({}), {
  events: process.env['ORDER_EVENTS_TABLE'] ?? 'order-events',
  views: process.env['ORDER_VIEWS_TABLE'] ?? 'order-views',
}) satisfies DynamoDBStreamHandler;

// ---- Running it locally ----

async function main(): Promise<void> {
  // Only the local run reads the stream itself: the deployed handler never loads these.
  const { readStreamRecords, startDynamoLocal, toLambdaRecord } =
    await import('dynafold/local');
  const { DynamoDBStreamsClient } =
    await import('@aws-sdk/client-dynamodb-streams');

  const local = await startDynamoLocal({
    jvmArgs: ['-XX:TieredStopAtLevel=1'],
  });
  const client = new DynamoDBClient(local.clientConfig);
  const streams = new DynamoDBStreamsClient(local.clientConfig);
  try {
    const tables: HandlerTables = {
      events: 'order-events',
      views: 'order-views',
    };
    const created = await client.send(
      new CreateTableCommand(eventsTableDefinition(tables.events)),
    );
    await client.send(
      new CreateTableCommand(
        readModelTableDefinition(tables.views, [
          orderSummaries(client, tables.views),
        ]),
      ),
    );
    const streamArn = created.TableDescription
      ?.LatestStreamArn as string;
    console.log(
      `DynamoDB Local at ${local.endpoint}; events stream ${streamArn}`,
    );
    console.log(
      `mapping filter: ${JSON.stringify(eventFilterPattern([orderStream(client, tables.events)]))}`,
    );

    const orders = orderStream(client, tables.events);
    await Promise.all(
      ['o-1', 'o-2', 'o-3'].map(async (orderId, i) => {
        await orders.append(
          { orderId },
          [
            {
              type: 'OrderPlaced',
              data: { customer: `customer-${i + 1}` },
            },
          ],
          { expectedVersion: 0 },
        );
        await orders.append({ orderId }, [
          { type: 'ItemAdded', data: { sku: 'book', price: 12 + i } },
          { type: 'ItemAdded', data: { sku: 'pen', price: 2 } },
        ]);
        if (i !== 1)
          await orders.append({ orderId }, [
            { type: 'OrderShipped', data: {} },
          ]);
      }),
    );

    // Everything in the table's stream so far, read with the DynamoDB Streams API, as Lambda delivers it.
    const records = await readStreamRecords(streams, streamArn);
    const event: DynamoDBStreamEvent = {
      Records: records.map((record) =>
        toLambdaRecord(record, {
          streamArn,
          region: local.clientConfig.region,
        }),
      ),
    };
    const localHandler = createHandler(client, tables);

    // Deliver the batch's second half first, as concurrent lanes may: its events fill their gaps from
    // the store. Then the whole batch, as a retry would: everything in it is skipped by the checkpoints.
    const half = Math.floor(event.Records.length / 2);
    console.log(
      `invoking with records ${half}..${event.Records.length - 1} of ${event.Records.length}`,
    );
    console.log(
      'response:',
      JSON.stringify(
        await localHandler({ Records: event.Records.slice(half) }),
      ),
    );
    console.log(`invoking with all ${event.Records.length} records`);
    console.log('response:', JSON.stringify(await localHandler(event)));

    const summaries = orderSummaries(client, tables.views);
    for (const orderId of ['o-1', 'o-2', 'o-3']) {
      const row = await summaries.get(
        { orderId },
        { consistent: true },
      );
      console.log(
        `row ${orderId}:`,
        JSON.stringify(
          row && { ...row, createdAt: undefined, updatedAt: undefined },
        ),
      );
    }
  } finally {
    streams.destroy();
    client.destroy();
    await local.stop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
