// #region express
import express from 'express';
import {
  dynafold,
  etagOf,
  expectedVersionOf,
  notFoundHandler,
  problemHandler,
} from 'dynafold/express';
import { DynamoCheckpointStore } from 'dynafold/feed';
import {
  client,
  NewItem,
  OrderEvents,
  OrderSummaries,
  OrderSummaryProjection,
  streamArn,
  streamsClient,
} from './model';

export function ordersApi() {
  const app = express();
  const service = dynafold(app, {
    streams: { orders: OrderEvents },
    readModels: { summaries: OrderSummaries },
    projections: { summaries: OrderSummaryProjection },
    healthPath: '/health',
    feed: {
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

  // Express 5 passes a rejected promise on to the error handlers.
  app.post(
    '/orders/:orderId/items',
    express.json(),
    async (req, res) => {
      // A zod error → 400 with its issues
      const item = NewItem.parse(req.body);
      const result = await OrderEvents.append(
        req.params.orderId,
        [{ type: 'ItemAdded', data: item }],
        {
          expectedVersion: expectedVersionOf(req.header('if-match')),
          waitFor: [OrderSummaryProjection],
        },
      );
      res
        .set('etag', etagOf(result.version))
        .json(
          result.projected?.[OrderSummaryProjection.name]?.[0]?.row ??
            null,
        );
    },
  );
  // After the routes: an unknown route is a 404 Problem Details
  app.use(notFoundHandler());
  app.use(problemHandler()); // after the routes

  // The server's 'close' stops the feed
  const server = service.closeWith(app.listen(3000));
  process.once('SIGTERM', () => {
    server.close();
    void service.close();
  });
  return server;
}
// #endregion express
