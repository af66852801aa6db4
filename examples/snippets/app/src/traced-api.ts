// A Fastify service with dynafold/fastify, traced from the request to
// the append: npx tsx --env-file=.env.local
// --import ./src/instrumentation.ts src/traced-api.ts
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { trace } from '@opentelemetry/api';
import { dynafold } from 'dynafold/fastify';
import Fastify from 'fastify';
import { orderStream } from './orders.js';

async function main(): Promise<void> {
  const orders = orderStream(new DynamoDBClient({}), 'events');
  const app = Fastify();
  // Errors as Problem Details, the stream on app.dynafold.
  await app.register(dynafold, { streams: { orders } });
  app.post<{ Params: { orderId: string }; Body: { customer: string } }>(
    '/orders/:orderId',
    async (request) => {
      const { version } = await orders.append(
        { orderId: request.params.orderId },
        [
          {
            type: 'OrderPlaced',
            data: { customer: request.body.customer },
          },
        ],
      );
      // The request's span, which the append's is a child of: its commit
      // stores the append's context for the projection to link to.
      const traceId = trace.getActiveSpan()?.spanContext().traceId;
      return { version, traceId };
    },
  );
  await app.listen({ port: 3000 });
  console.log('listening on http://127.0.0.1:3000');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
