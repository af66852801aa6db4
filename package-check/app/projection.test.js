// The order summary's projection spec under jest (plain CommonJS), on the DynamoDB Local of the kit's global setup.
const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
const { EventStream, Projection, ReadModel } = require('dynafold');
const { DYNAMODB_ENDPOINT, localClientConfig, projectionSpec } = require('dynafold/testing');
const { z } = require('zod');

const client = new DynamoDBClient(localClientConfig());
afterAll(() => client.destroy());

const summaryProjection = (events, readModels) =>
  new Projection({
    stream: new EventStream({
      client,
      table: events,
      name: 'Order',
      streamId: ['orderId'],
      events: { OrderPlaced: z.object({ customer: z.string() }), ItemAdded: z.object({ sku: z.string(), price: z.number() }) },
    }),
    readModel: new ReadModel({
      client,
      table: readModels,
      name: 'OrderSummary',
      schema: z.object({ orderId: z.string(), customer: z.string(), total: z.number(), version: z.number() }),
      key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
    }),
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => ({ orderId: streamId.orderId, customer: '', total: 0, version: 0 }),
    evolve: (row, event) =>
      event.type === 'OrderPlaced' ? { ...row, customer: event.data.customer } : { ...row, total: row.total + event.data.price },
    checkpoint: 'version',
  });

test('the global setup started DynamoDB Local', () => {
  expect(process.env[DYNAMODB_ENDPOINT]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

test('every delivery folds the order summary once', async () => {
  const result = await projectionSpec(({ events, readModels }) => summaryProjection(events, readModels))
    .given([
      {
        streamId: { orderId: 'o-1' },
        events: [
          { type: 'OrderPlaced', data: { customer: 'ada' } },
          { type: 'ItemAdded', data: { sku: 'book', price: 12 } },
        ],
      },
    ])
    .thenRows([{ key: { orderId: 'o-1' }, row: { orderId: 'o-1', customer: 'ada', total: 12, version: 2 } }]);
  expect(result.deliveries.length).toBeGreaterThan(0);
  for (const delivery of result.deliveries) expect(delivery.applied).toBe(2);
});
