// The Lambda function as deployed: region and credentials come from
// the Lambda environment.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ordersHandler } from './orders.js';

export const handler = ordersHandler(new DynamoDBClient({}), {
  events: process.env['EVENTS_TABLE'] ?? 'events',
  views: process.env['VIEWS_TABLE'] ?? 'views',
});
