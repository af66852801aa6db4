// The services guide's stream, read model and projection (the store guide's, with a projection).
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { Projection } from 'dynafold';
import { z } from 'zod';
import { client, OrderEvents, OrderSummaries } from '../store/model';

export { client, OrderEvents, OrderSummaries };
export const streamsClient = new DynamoDBStreamsClient({});
export const streamArn = process.env['EVENTS_STREAM_ARN'] ?? '';
export const NewItem = z.object({ sku: z.string(), price: z.number() });

export const OrderSummaryProjection = new Projection({
  stream: OrderEvents,
  readModel: OrderSummaries,
  key: (streamId) => ({ orderId: streamId.orderId }),
  initial: (streamId) => ({ orderId: streamId.orderId, customer: '', status: 'new', total: 0, version: 0 }),
  evolve: (row, event) => {
    switch (event.type) {
      case 'OrderPlaced':
        return { ...row, customer: event.data.customer, status: 'placed' };
      case 'ItemAdded':
        return { ...row, total: row.total + event.data.price };
      case 'OrderShipped':
        return { ...row, status: 'shipped' };
    }
  },
  checkpoint: 'version',
});
