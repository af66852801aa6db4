// The services guide's stream, read model and projection (the store and
// projections guides'), and what a service adds.
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { z } from 'zod';
import { OrderSummaryProjection } from '../projections/projection';
import { client, OrderEvents, OrderSummaries } from '../store/model';

export { client, OrderEvents, OrderSummaries, OrderSummaryProjection };
export const streamsClient = new DynamoDBStreamsClient({});
export const streamArn = process.env['EVENTS_STREAM_ARN'] ?? '';
export const NewItem = z.object({ sku: z.string(), price: z.number() });
