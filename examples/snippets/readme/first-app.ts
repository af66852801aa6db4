// The README's first app: an order's events appended, and projected
// into its summary row.
// #region first-app
import {
  CreateTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  EventStream,
  Projection,
  ReadModel,
  eventsTableDefinition,
  readModelTableDefinition,
} from 'dynafold';
import { startDynamoLocal } from 'dynafold/local';
import { z } from 'zod';

async function main(): Promise<void> {
  // An in-memory DynamoDB Local (Java 17+)
  const local = await startDynamoLocal();
  const client = new DynamoDBClient(local.clientConfig);
  const orders = new EventStream({
    client,
    table: 'events',
    name: 'Order',
    streamId: ['orderId'],
    events: {
      OrderPlaced: z.object({ customer: z.string() }),
      ItemAdded: z.object({ sku: z.string(), price: z.number() }),
    },
  });
  const summaries = new ReadModel({
    client,
    table: 'views',
    name: 'OrderSummary',
    schema: z.object({
      orderId: z.string(),
      customer: z.string(),
      total: z.number(),
      version: z.number(),
    }),
    key: {
      pk: { field: 'pk', composite: ['orderId'] },
      sk: { field: 'sk', composite: [] },
    },
  });
  const projection = new Projection({
    stream: orders,
    readModel: summaries,
    checkpoint: 'version',
    key: (id) => ({ orderId: id.orderId }),
    initial: (id) => ({
      orderId: id.orderId,
      customer: '',
      total: 0,
      version: 0,
    }),
    evolve: (row, event) =>
      event.type === 'OrderPlaced'
        ? { ...row, customer: event.data.customer }
        : { ...row, total: row.total + event.data.price },
  });

  await client.send(
    new CreateTableCommand(eventsTableDefinition('events')),
  );
  await client.send(
    new CreateTableCommand(
      readModelTableDefinition('views', [summaries]),
    ),
  );
  await orders.append({ orderId: 'o-1' }, [
    { type: 'OrderPlaced', data: { customer: 'ada' } },
    { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
  ]);
  // What a stream delivery does: fold the new events into the row
  await projection.catchUp({ orderId: 'o-1' });
  // { orderId: 'o-1', customer: 'ada', total: 12, version: 2, ... }
  console.log(await summaries.get({ orderId: 'o-1' }));
  client.destroy();
  await local.stop();
}

void main();
// #endregion first-app
