/**
 * A Fastify service that runs a change feed in its own process, with a health endpoint and a graceful
 * shutdown (SIGINT / SIGTERM stop the feed, release its lease and close the server).
 *
 *   npx tsx examples/feed-service.ts          # serves on PORT (default 3000) until interrupted
 *   curl -X POST localhost:3000/items         # writes an item; the feed logs its change
 *   curl localhost:3000/health                # the feed's status and how many changes it processed
 *   npx tsx examples/feed-service.ts --once   # writes a few items, waits for the feed, prints /health, exits
 *
 * It starts an embedded DynamoDB Local unless DYNAMODB_ENDPOINT points at one.
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import Fastify from 'fastify';
import {
  ChangeFeedConsumer,
  DynamoCheckpointStore,
  runBatches,
  type ChangeFeedBatch,
} from 'dynafold/feed';
import {
  DynamoLocalDefaults,
  startDynamoLocal,
  type DynamoLocal,
} from 'dynafold/local';

const once = process.argv.includes('--once');

async function main(): Promise<void> {
  // The SDK's notice about Node versions it will drop has no place in the output.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] =
    'true';
  const endpoint = process.env['DYNAMODB_ENDPOINT'];
  const local: DynamoLocal | undefined =
    endpoint === undefined ? await startDynamoLocal() : undefined;
  const config = local?.clientConfig ?? {
    endpoint,
    region: DynamoLocalDefaults.region,
    credentials: { ...DynamoLocalDefaults.credentials },
  };
  const client = new DynamoDBClient(config);
  const streamsClient = new DynamoDBStreamsClient(config);
  const { table, streamArn, checkpointTable } =
    await createTables(client);

  const app = Fastify({ logger: { level: once ? 'warn' : 'info' } });
  const feed = new ChangeFeedConsumer({
    streamsClient,
    streamArn,
    consumer: 'feed-service',
    checkpoints: new DynamoCheckpointStore({
      client,
      table: checkpointTable,
    }),
    pollIntervalMs: 200,
    logger: app.log,
  });
  let processed = 0;

  // 503 once the feed has failed or stopped, so that an orchestrator restarts the service.
  app.get('/health', async (_request, reply) => {
    const status = feed.status();
    const healthy =
      status.state === 'starting' || status.state === 'running';
    return reply
      .code(healthy ? 200 : 503)
      .send({ ...status, error: status.error?.message, processed });
  });

  // Writes come after the feed started, as in any service: the feed must pick up the table's first record.
  let written = 0;
  app.post('/items', async (_request, reply) => {
    const id = `item-${++written}`;
    await client.send(
      new PutItemCommand({ TableName: table, Item: { id: { S: id } } }),
    );
    return reply.code(201).send({ id });
  });

  const handle = async (batch: ChangeFeedBatch) => {
    for (const record of batch.records)
      app.log.info(
        {
          shardId: batch.shardId,
          id: record.dynamodb?.Keys?.['id']?.S,
        },
        'change',
      );
    processed += batch.records.length;
    return { batchItemFailures: [] };
  };
  const running = runBatches(feed, handle);
  running.catch((error: unknown) =>
    app.log.error({ err: error }, 'the change feed failed'),
  );

  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= (async () => {
      await feed.stop();
      await running.catch(() => undefined);
      await app.close();
      client.destroy();
      streamsClient.destroy();
      await local?.stop();
    })());
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());

  const address = await app.listen({
    port: Number(process.env['PORT'] ?? (once ? 0 : 3000)),
    host: '127.0.0.1',
  });
  app.log.info(`listening on ${address}`);

  if (once) {
    for (let n = 0; n < 5; n++)
      await app.inject({ method: 'POST', url: '/items' });
    const deadline = Date.now() + 20_000;
    while (processed < 5 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const health = await app.inject({ method: 'GET', url: '/health' });
    console.log(health.statusCode, health.body);
    await shutdown();
    if (processed < 5) process.exitCode = 1;
  }
}

async function createTables(
  client: DynamoDBClient,
): Promise<{
  table: string;
  streamArn: string;
  checkpointTable: string;
}> {
  const suffix = Date.now().toString(36);
  const table = `items-${suffix}`;
  const created = await client.send(
    new CreateTableCommand({
      TableName: table,
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: {
        StreamEnabled: true,
        StreamViewType: 'NEW_IMAGE',
      },
    }),
  );
  const streamArn = created.TableDescription?.LatestStreamArn;
  if (streamArn === undefined)
    throw new Error('The table has no stream');
  const checkpointTable = `checkpoints-${suffix}`;
  await client.send(
    new CreateTableCommand(
      DynamoCheckpointStore.tableDefinition(checkpointTable),
    ),
  );
  return { table, streamArn, checkpointTable };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
