/**
 * The orders API of fastify-service.ts on Express 5 with `dynafold/express`: the same routes, Problem
 * Details from `problemHandler()` mounted after them, the streams and read models in `app.locals`, and
 * the change feed stopped when the server closes.
 *
 *   npx tsx examples/express-service.ts     # serves on PORT (default 3000) until interrupted
 *   curl -i -X POST localhost:3000/orders -H 'content-type: application/json' -d '{"orderId":"o-1","customer":"ada"}'
 *   curl -i -X POST localhost:3000/orders/o-1/items -H 'content-type: application/json' -H 'if-match: "1"' -d '{"sku":"tea","price":4.5}'
 *
 * It starts an embedded DynamoDB Local unless DYNAMODB_ENDPOINT points at one.
 */
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { dynafold, problemHandler } from 'dynafold/express';
import {
  addItemTo,
  orderApi,
  placeOrder,
  readOrder,
  type Answer,
} from './support/order-api';

async function main(): Promise<void> {
  const api = await orderApi();
  const app = express();
  const service = dynafold(app, {
    streams: { orders: api.Orders },
    readModels: { summaries: api.OrderSummaries },
    projections: [api.summaries],
    feed: api.feed,
    healthPath: '/health',
    logger: console,
  });

  const send = (response: Response, answer: Answer) => {
    if (answer.etag !== undefined) response.set('etag', answer.etag);
    response.status(answer.status).json(answer.body);
  };
  // Express 5 hands a rejected handler's error to the error middleware.
  app.post('/orders', express.json(), async (request, response) =>
    send(response, await placeOrder(api, request.body)),
  );
  app.post(
    '/orders/:orderId/items',
    express.json(),
    async (request, response) =>
      send(
        response,
        await addItemTo(
          api,
          request.params.orderId,
          request.body,
          request.headers['if-match'],
        ),
      ),
  );
  app.get('/orders/:orderId', async (request, response) =>
    send(
      response,
      await readOrder(
        api,
        request.params.orderId,
        request.query['version'],
      ),
    ),
  );
  app.use(problemHandler({ logger: console }));

  const server = service.closeWith(
    app.listen(Number(process.env['PORT'] ?? 3000), '127.0.0.1'),
  );
  await new Promise<void>((resolve, reject) =>
    server.once('listening', resolve).once('error', reject),
  );
  console.log(
    `listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  );

  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= (async () => {
      await new Promise((resolve) => server.close(resolve));
      await service.close(); // the server's close already asked the feed to stop: wait until it did
      await api.close();
    })());
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
