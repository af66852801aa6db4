import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { createTestTable } from './dynamo';
import { orderSummaries, orderSummaryProjection } from './order-projection';
import { orderStream } from './orders';

/**
 * Creates an events table and an order summaries table under `prefix`, and answers the order stream, the
 * summaries and their projection on them, with the tables' names and the events table's stream ARN.
 */
export async function createOrderSummaryTables(client: DynamoDBClient, prefix: string) {
  const events = await createTestTable(client, eventsTableDefinition, `${prefix}-events`);
  const stream = orderStream(client, events.name);
  const views = await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), `${prefix}-views`);
  const summaries = orderSummaries(client, views.name);
  return {
    stream,
    summaries,
    projection: orderSummaryProjection(stream, summaries),
    eventsTable: events.name,
    streamArn: events.streamArn as string,
    viewsTable: views.name,
  };
}
