// A projection's Lambda function with OpenTelemetry (`src/handler.ts`).
// #region lambda
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConsoleSpanExporter } from '@opentelemetry/sdk-trace';
import { ConsoleMetricExporter } from '@opentelemetry/sdk-metrics';
import {
  lambdaHandler,
  type LambdaContextLike,
  type LambdaStreamEvent,
} from 'dynafold/lambda';
import {
  orderEvents,
  orderSummaries,
  orderSummaryProjection,
} from '../testing/orders';
import { registerTelemetry } from './telemetry';

// Registered at cold start, before the first invocation. The console
// exporters stand in for your backend's (OTLP, say).
const telemetry = registerTelemetry(
  new ConsoleSpanExporter(),
  new ConsoleMetricExporter(),
);

const client = new DynamoDBClient({});
const project = lambdaHandler({
  projections: {
    summaries: orderSummaryProjection(
      orderEvents(client, 'events'),
      orderSummaries(client, 'views'),
    ),
  },
});

export const handler = async (
  event: LambdaStreamEvent,
  context: LambdaContextLike,
) => {
  try {
    return await project(event, context);
  } finally {
    // The function freezes once it returns: send the batch's spans now.
    await telemetry.flush();
  }
};
// #endregion lambda
