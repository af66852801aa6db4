// The same API on Express 5 with dynafold/express (npm install express
// @types/express): app.locals.dynafold holds what app.dynafold does.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  dynafold,
  etagOf,
  expectedVersionOf,
  notFoundHandler,
  problemHandler,
} from 'dynafold/express';
import express from 'express';
import { z } from 'zod';
import {
  orderStream,
  orderSummaries,
  orderSummaryProjection,
} from './orders.js';
import { addItemAndRead } from './read-your-writes.js';

const NewItem = z.object({ sku: z.string(), price: z.number() });

export function ordersApi(client: DynamoDBClient) {
  const orders = orderStream(client, 'events');
  const summaries = orderSummaries(client, 'views');
  const projection = orderSummaryProjection(orders, summaries);
  const app = express();
  // A feed runs as in Fastify (`feed`); it starts at once, and
  // service.close() stops it.
  const service = dynafold(app, {
    streams: { orders },
    readModels: { summaries },
    projections: [projection],
    healthPath: '/health',
  });

  // Express 5 passes a rejected promise on to the error handlers.
  app.post(
    '/orders/:orderId/items',
    express.json(),
    async (req, res) => {
      const { version, row } = await addItemAndRead(
        orders,
        projection,
        req.params.orderId,
        NewItem.parse(req.body), // a zod error → 400 with its issues
        expectedVersionOf(req.header('if-match')),
      );
      res.set('etag', etagOf(version)).json(row ?? null);
    },
  );
  // After the routes: an unknown route is a 404 Problem Details, and
  // every error a Problem Details with its status.
  app.use(notFoundHandler());
  app.use(problemHandler());
  return { app, service };
}
