// A Fastify service with OpenTelemetry (`src/server.ts`).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { trace } from '@opentelemetry/api';
import { ConsoleSpanExporter } from '@opentelemetry/sdk-trace';
import { ConsoleMetricExporter } from '@opentelemetry/sdk-metrics';
import Fastify from 'fastify';
import { orderEvents } from '../testing/orders';
import { registerTelemetry } from './telemetry';

// #region service
// First thing at startup: spans started before it are not recorded.
registerTelemetry(
  new ConsoleSpanExporter(),
  new ConsoleMetricExporter(),
);

const orders = orderEvents(new DynamoDBClient({}), 'events');
const app = Fastify();

app.post<{ Params: { orderId: string }; Body: { customer: string } }>(
  '/orders/:orderId',
  async (request) => {
    // An HTTP instrumentation would start the request's span; the
    // append's span is its child, and the commit stores the append's
    // context for the projection to link to.
    const { version } = await orders.append(
      { orderId: request.params.orderId },
      [
        {
          type: 'OrderPlaced',
          data: { customer: request.body.customer },
        },
      ],
    );
    const traceId = trace.getActiveSpan()?.spanContext().traceId;
    return { version, traceId };
  },
);
// #endregion service

export { app };
