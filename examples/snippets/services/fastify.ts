// #region fastify
import Fastify from 'fastify';
import { DynamoCheckpointStore } from 'dynafold/feed';
import { dynafold, etagOf, expectedVersionOf } from 'dynafold/fastify';
import {
  client,
  NewItem,
  OrderEvents,
  OrderSummaries,
  OrderSummaryProjection,
  streamArn,
  streamsClient,
} from './model';

export async function ordersApi() {
  const app = Fastify();
  await app.register(dynafold, {
    streams: { orders: OrderEvents },
    readModels: { summaries: OrderSummaries },
    projections: { summaries: OrderSummaryProjection },
    // 200 while the feed starts or runs, 503 once it failed or ended
    healthPath: '/health',
    feed: {
      // runChangeFeed's options, plus the consumer or its options
      consumer: {
        streamsClient,
        streamArn,
        consumer: 'orders-api',
        checkpoints: new DynamoCheckpointStore({
          client,
          table: 'checkpoints',
        }),
      },
      projections: { summaries: OrderSummaryProjection },
    },
  });

  app.post<{ Params: { orderId: string } }>(
    '/orders/:orderId/items',
    async (request, reply) => {
      // A zod error → 400 with its issues
      const item = NewItem.parse(request.body);
      const result = await OrderEvents.append(
        request.params.orderId,
        [{ type: 'ItemAdded', data: item }],
        {
          expectedVersion: expectedVersionOf(
            request.headers['if-match'],
          ), // "3" → 3; none → at the head
          waitFor: [OrderSummaryProjection], // read-your-writes
        },
      );
      return reply
        .header('etag', etagOf(result.version))
        .send(
          result.projected?.[OrderSummaryProjection.name]?.[0]?.row,
        );
    },
  );
  return app;
}
// #endregion fastify
