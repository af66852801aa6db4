/**
 * What the Fastify and Express examples share: the orders domain on DynamoDB (tables, the stream, the
 * summary projection run by a change feed), the request bodies, and the three operations of the API with
 * optimistic concurrency over HTTP: a stream's version is the resource's ETag, and `If-Match` carries it
 * back as the append's `expectedVersion`.
 */
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { z } from 'zod';
import {
  eventsTableDefinition,
  readModelTableDefinition,
} from 'dynafold';
import { DynamoCheckpointStore } from 'dynafold/feed';
import {
  etagOf,
  expectedVersionOf,
  type ServiceFeedOptions,
} from 'dynafold/fastify';
import { connect, type Connection } from './connect';
import {
  addItem,
  orderStream,
  orderSummaries,
  orderSummaryProjection,
  type OrderStream,
  type OrderSummaries,
  type OrderSummaryProjection,
} from './orders';
import { createTable, deleteTables, uniqueTableName } from './tables';

/** The body of `POST /orders`. */
export const NewOrder = z.object({
  orderId: z.string().min(1).max(64),
  customer: z.string().min(1),
});
/** The body of `POST /orders/:orderId/items`. */
export const NewItem = z.object({
  sku: z.string().min(1),
  price: z.number().positive(),
});

/** How long a request waits for the read model to show its write before it fails with 504 (READ_YOUR_WRITES_MS overrides). */
const READ_YOUR_WRITES_MS = Number(
  process.env['READ_YOUR_WRITES_MS'] ?? 5000,
);

/** The service's DynamoDB resources. */
export interface OrderApi {
  readonly Orders: OrderStream;
  readonly OrderSummaries: OrderSummaries;
  readonly summaries: OrderSummaryProjection;
  /** The change feed that keeps the summaries, for the framework integration to run. */
  readonly feed: ServiceFeedOptions<
    ReadonlyArray<OrderSummaryProjection>
  >;
  /** Destroys the clients, deletes tables worth deleting, stops the embedded DynamoDB Local. */
  close(): Promise<void>;
}

export async function orderApi(): Promise<OrderApi> {
  const connection: Connection = await connect();
  const { client } = connection;
  const events = await createTable(
    client,
    eventsTableDefinition(uniqueTableName('events')),
  );
  const views = await createTable(
    client,
    readModelTableDefinition(uniqueTableName('views'), [
      orderSummaries(client, 'placeholder'),
    ]),
  );
  const checkpoints = await createTable(
    client,
    DynamoCheckpointStore.tableDefinition(
      uniqueTableName('checkpoints'),
    ),
  );
  if (events.streamArn === undefined)
    throw new Error(`The events table ${events.name} has no stream`);
  const Orders = orderStream(client, events.name);
  const OrderSummaries = orderSummaries(client, views.name);
  const summaries = orderSummaryProjection(Orders, OrderSummaries);
  const streamsClient = new DynamoDBStreamsClient(connection.config);
  return {
    Orders,
    OrderSummaries,
    summaries,
    feed: {
      consumer: {
        streamsClient,
        streamArn: events.streamArn,
        consumer: 'order-api',
        checkpoints: new DynamoCheckpointStore({
          client,
          table: checkpoints.name,
        }),
        pollIntervalMs: 50,
      },
      projections: [summaries],
    },
    close: async () => {
      streamsClient.destroy();
      if (connection.persistent)
        await deleteTables(client, [
          events.name,
          views.name,
          checkpoints.name,
        ]);
      await connection.close();
    },
  };
}

/** An answer of the API, whatever the framework: status, the ETag (the stream's version) and the body. */
export interface Answer {
  readonly status: number;
  readonly etag?: string;
  readonly body?: unknown;
}

/**
 * `POST /orders`: a new order. The append expects version 0, so a second POST of the same order is a
 * `ConcurrencyError`: 409 Conflict. It answers once the summary shows the order (read-your-writes).
 */
export async function placeOrder(
  api: OrderApi,
  body: unknown,
): Promise<Answer> {
  const { orderId, customer } = NewOrder.parse(body);
  const { version, projected } = await api.Orders.append(
    { orderId },
    [{ type: 'OrderPlaced', data: { customer } }],
    {
      expectedVersion: 0,
      waitFor: {
        projections: [api.summaries],
        timeoutMs: READ_YOUR_WRITES_MS,
      },
    },
  );
  return {
    status: 201,
    etag: etagOf(version),
    body: projected?.[api.summaries.name]?.[0]?.row,
  };
}

/**
 * `POST /orders/:orderId/items`: the command decides on the order as it is; with `If-Match: "<version>"`
 * it appends only if the order is still at that version (else 412 Precondition Failed), without it at the
 * version it decided on (409 if another write came first). It answers the summary with the new item.
 */
export async function addItemTo(
  api: OrderApi,
  orderId: string,
  body: unknown,
  ifMatch: string | string[] | undefined,
): Promise<Answer> {
  const expectedVersion = expectedVersionOf(ifMatch);
  const { sku, price } = NewItem.parse(body);
  const command = addItem(sku, price);
  const { state, version } = await api.Orders.load(
    { orderId },
    command,
  );
  const events = (await command.decide?.(state, version)) ?? [];
  const result = await api.Orders.append({ orderId }, events, {
    expectedVersion: expectedVersion ?? version,
    waitFor: {
      projections: [api.summaries],
      timeoutMs: READ_YOUR_WRITES_MS,
    },
  });
  return {
    status: 200,
    etag: etagOf(result.version),
    body: result.projected?.[api.summaries.name]?.[0]?.row,
  };
}

/**
 * `GET /orders/:orderId[?version=n]`: the summary; with `version`, once it reflects at least that version
 * of the order (read-your-writes for a client that wrote elsewhere), or as it is after the wait.
 */
export async function readOrder(
  api: OrderApi,
  orderId: string,
  version: unknown,
): Promise<Answer> {
  const atLeast =
    version === undefined
      ? undefined
      : z.coerce.number().int().positive().parse(version);
  const row =
    atLeast === undefined
      ? await api.OrderSummaries.get({ orderId }, { consistent: true })
      : (
          await api.summaries.waitFor(
            { orderId },
            {
              version: atLeast,
              timeoutMs: READ_YOUR_WRITES_MS,
              onTimeout: 'stale',
            },
          )
        ).row;
  if (row === undefined)
    return {
      status: 404,
      body: {
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        detail: `No order ${orderId}.`,
      },
    };
  return { status: 200, etag: etagOf(row.version), body: row };
}
