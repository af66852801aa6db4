/**
 * What a new user does first, run against the packed package on its embedded DynamoDB Local: create
 * the tables, append (and have bad data refused by the app's own zod), project the stream's real
 * records through the Lambda handler, read the row. `modules` come from the ESM or the CommonJS entry.
 */
const assert = require('node:assert/strict');

module.exports = async function scenario({ dynafold, local, sdk, streams, z, cdk }) {
  const dynamo = await local.startDynamoLocal();
  const client = new sdk.DynamoDBClient(dynamo.clientConfig);
  try {
    const events = { OrderPlaced: z.object({ customer: z.string() }), ItemAdded: z.object({ sku: z.string(), price: z.number() }) };
    const orders = new dynafold.EventStream({ client, table: 'events', name: 'Order', streamId: ['orderId'], events });
    const summaries = new dynafold.ReadModel({
      client,
      table: 'views',
      name: 'OrderSummary',
      schema: z.object({ orderId: z.string(), customer: z.string(), total: z.number(), version: z.number() }),
      key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
    });
    const created = await client.send(new sdk.CreateTableCommand(dynafold.eventsTableDefinition('events')));
    await client.send(new sdk.CreateTableCommand(dynafold.readModelTableDefinition('views', [summaries])));
    const streamArn = created.TableDescription.LatestStreamArn;

    await orders.append({ orderId: 'o-1' }, [
      { type: 'OrderPlaced', data: { customer: 'ada' } },
      { type: 'ItemAdded', data: { sku: 'a', price: 2.5 } },
    ]);
    await assert.rejects(orders.append({ orderId: 'o-1' }, [{ type: 'ItemAdded', data: { sku: 'b', price: 'free' } }]), (error) => {
      assert.ok(error instanceof dynafold.ValidationError, `expected a ValidationError, got ${error}`);
      assert.ok(dynafold.DynafoldError.is(error, 'store.validation'));
      return true;
    });
    assert.deepEqual(
      (await orders.read({ orderId: 'o-1' })).map((event) => [event.version, event.type]),
      [
        [1, 'OrderPlaced'],
        [2, 'ItemAdded'],
      ],
    );

    const projection = new dynafold.Projection({
      stream: orders,
      readModel: summaries,
      key: (streamId) => ({ orderId: streamId.orderId }),
      initial: (streamId) => ({ orderId: streamId.orderId, customer: '', total: 0, version: 0 }),
      evolve: (row, event) =>
        event.type === 'OrderPlaced' ? { ...row, customer: event.data.customer } : { ...row, total: row.total + event.data.price },
      checkpoint: 'version',
    });
    const handler = dynafold.lambdaHandler({ projections: { summaries: projection } });
    const records = await local.readStreamRecords(new streams.DynamoDBStreamsClient(dynamo.clientConfig), streamArn);
    const response = await handler({ Records: records.map((record) => local.toLambdaRecord(record, { streamArn })) });
    assert.deepEqual(response, { batchItemFailures: [] });
    const row = await summaries.get({ orderId: 'o-1' });
    assert.equal(row?.customer, 'ada');
    assert.equal(row?.total, 2.5);
    assert.equal(row?.version, 2);

    // The same read model deployed: the CDK constructs synthesise a projector wired for dynafold.
    const app = new cdk.core.App();
    const stack = new cdk.core.Stack(app, 'App');
    const fn = new cdk.lambda.Function(stack, 'Fn', {
      runtime: cdk.lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: cdk.lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] })'),
    });
    const eventsTable = new cdk.dynafold.EventsTable(stack, 'Events');
    const views = new cdk.dynafold.ReadModelTable(stack, 'Views', { readModels: [summaries] });
    new cdk.dynafold.Projector(stack, 'Summaries', {
      function: fn,
      eventsTable: eventsTable.table,
      streams: ['Order'],
      readModelTables: [views.table],
    });
    const resources = Object.values(app.synth().getStackByName('App').template.Resources);
    const mapping = resources.find((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping');
    assert.deepEqual(mapping?.Properties.FunctionResponseTypes, ['ReportBatchItemFailures']);
    assert.equal(mapping?.Properties.FilterCriteria.Filters[0].Pattern, JSON.stringify(cdk.dynafold.eventFilterPattern(['Order'])));
  } finally {
    client.destroy();
    await dynamo.stop();
  }
};
