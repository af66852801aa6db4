/**
 * An orders API on Fastify with the `dynafold/fastify` plugin: errors answer RFC 9457 Problem Details
 * (a conflict 409, or 412 with If-Match; a bad body 400 with the field paths), the stream's version is
 * the ETag and If-Match carries it back, writes answer the read model's row once it shows them
 * (read-your-writes), and the change feed that keeps the read model runs in the process.
 *
 *   npx tsx examples/fastify-service.ts     # serves on PORT (default 3000) until interrupted
 *   curl -i -X POST localhost:3000/orders -H 'content-type: application/json' -d '{"orderId":"o-1","customer":"ada"}'
 *   curl -i -X POST localhost:3000/orders/o-1/items -H 'content-type: application/json' -H 'if-match: "1"' -d '{"sku":"tea","price":4.5}'
 *   curl -i localhost:3000/orders/o-1
 *   curl localhost:3000/health
 *
 * It starts an embedded DynamoDB Local unless DYNAMODB_ENDPOINT points at one.
 */
import Fastify, { type FastifyReply } from 'fastify';
import { dynafold } from 'dynafold/fastify';
import {
  addItemTo,
  orderApi,
  placeOrder,
  readOrder,
  type Answer,
} from './support/order-api';

async function main(): Promise<void> {
  const api = await orderApi();
  const app = Fastify({
    logger: { level: process.env['LOG_LEVEL'] ?? 'warn' },
  });
  await app.register(dynafold, {
    streams: { orders: api.Orders },
    readModels: { summaries: api.OrderSummaries },
    projections: [api.summaries],
    // The change feed starts when the app is ready and stops (releasing its lease) when it closes.
    feed: api.feed,
    healthPath: '/health',
  });

  const send = (reply: FastifyReply, answer: Answer) => {
    if (answer.etag !== undefined)
      void reply.header('etag', answer.etag);
    return reply.code(answer.status).send(answer.body);
  };
  app.post('/orders', async (request, reply) =>
    send(reply, await placeOrder(api, request.body)),
  );
  app.post<{ Params: { orderId: string } }>(
    '/orders/:orderId/items',
    async (request, reply) =>
      send(
        reply,
        await addItemTo(
          api,
          request.params.orderId,
          request.body,
          request.headers['if-match'],
        ),
      ),
  );
  app.get<{
    Params: { orderId: string };
    Querystring: { version?: string };
  }>('/orders/:orderId', async (request, reply) =>
    send(
      reply,
      await readOrder(
        api,
        request.params.orderId,
        request.query.version,
      ),
    ),
  );

  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= (async () => {
      await app.close(); // stops the change feed through the plugin's onClose hook
      await api.close();
    })());
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());

  const address = await app.listen({
    port: Number(process.env['PORT'] ?? 3000),
    host: '127.0.0.1',
  });
  console.log(`listening on ${address}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
