// The orders API on Fastify with dynafold/fastify: Problem Details for
// errors, the stream's version as the ETag, a change feed that keeps the
// summaries while the service runs, and read-your-writes.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { dynafold, etagOf, expectedVersionOf } from 'dynafold/fastify';
import { DynamoCheckpointStore } from 'dynafold/feed';
import Fastify from 'fastify';
import { z } from 'zod';
import {
  orderStream,
  orderSummaries,
  orderSummaryProjection,
} from './orders.js';
import { addItemAndRead } from './read-your-writes.js';

const NewItem = z.object({ sku: z.string(), price: z.number() });
const NewOrder = z.object({ customer: z.string() });

export async function ordersApi(
  client: DynamoDBClient,
  streamArn: string,
) {
  const orders = orderStream(client, 'events');
  const summaries = orderSummaries(client, 'views');
  const projection = orderSummaryProjection(orders, summaries);
  const app = Fastify();
  await app.register(dynafold, {
    streams: { orders },
    readModels: { summaries },
    projections: [projection],
    // 200 while the feed starts or runs, 503 once it failed or ended.
    healthPath: '/health',
    feed: {
      // runChangeFeed's options, and the consumer's: it starts when the
      // app is ready and stops, releasing its lease, when it closes.
      consumer: {
        streamsClient: new DynamoDBStreamsClient({}),
        streamArn,
        consumer: 'orders-api',
        checkpoints: new DynamoCheckpointStore({
          client,
          table: 'checkpoints',
        }),
      },
      projections: [projection],
    },
  });

  app.post<{ Params: { orderId: string } }>(
    '/orders/:orderId',
    async (request, reply) => {
      const { customer } = NewOrder.parse(request.body); // 400 if not
      // expectedVersion 0: a new order, or a 409 Conflict.
      const { version } = await orders.append(
        { orderId: request.params.orderId },
        [{ type: 'OrderPlaced', data: { customer } }],
        { expectedVersion: 0 },
      );
      return reply.code(201).header('etag', etagOf(version)).send();
    },
  );

  app.post<{ Params: { orderId: string } }>(
    '/orders/:orderId/items',
    async (request, reply) => {
      // The ETag the client read: '"3"' → 3, none → at the head; a
      // stale one is a 412 Precondition Failed.
      const expected = expectedVersionOf(request.headers['if-match']);
      const { version, row } = await addItemAndRead(
        orders,
        projection,
        request.params.orderId,
        NewItem.parse(request.body),
        expected,
      );
      return reply.header('etag', etagOf(version)).send(row);
    },
  );

  app.get<{ Params: { orderId: string } }>(
    '/orders/:orderId',
    async (request, reply) => {
      const row = await summaries.get({
        orderId: request.params.orderId,
      });
      if (row === undefined) return reply.code(404).send();
      return reply.header('etag', etagOf(row.version)).send(row);
    },
  );
  return app;
}
