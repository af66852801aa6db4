// The handler's app made from the dynafold modules it is given (the ES module build's or the CommonJS
// build's), on the tables the environment names: the stream, the read model and a lambdaHandler.
const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
const { z } = require('zod');

module.exports = function tracedApp({ dynafold, lambda }) {
  const client = new DynamoDBClient({});
  const orders = new dynafold.EventStream({
    client,
    table: process.env.EVENTS_TABLE,
    name: 'Order',
    streamId: ['orderId'],
    events: { OrderPlaced: z.object({ customer: z.string() }) },
  });
  const summaries = new dynafold.ReadModel({
    client,
    table: process.env.VIEWS_TABLE,
    name: 'OrderSummary',
    schema: z.object({ orderId: z.string(), customer: z.string(), version: z.number() }),
    key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
  });
  const projection = new dynafold.Projection({
    stream: orders,
    readModel: summaries,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => ({ orderId: streamId.orderId, customer: '', version: 0 }),
    evolve: (row, event) => ({ ...row, customer: event.data.customer }),
    checkpoint: 'version',
  });
  return { orders, summaries, handler: lambda.lambdaHandler({ projections: { summaries: projection } }) };
};
