/**
 * The Lambda function as deployed: a client from the environment, the projection on its tables. It also
 * exports the stream and the read model, with which the bundle check appends and reads the row back.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { lambdaHandler } from 'dynafold/lambda';
import { orderProjection, orderStream, orderSummaries } from './orders.js';

const client = new DynamoDBClient({});
export const orders = orderStream(client, process.env['EVENTS_TABLE'] ?? 'events');
export const summaries = orderSummaries(client, process.env['VIEWS_TABLE'] ?? 'views');
export const handler = lambdaHandler({ projections: [orderProjection(orders, summaries)] });
