/**
 * Runs handler bundles on real stream records: starts DynamoDB Local, points each bundle's client at it
 * through the SDK's environment variables (as Lambda configures one), appends with the bundle's own
 * stream, hands the stream's records to its handler as a Lambda event, and reads the projected row.
 *
 *   node run-bundle.mjs dist/handler.mjs dist/handler.cjs
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { readStreamRecords, startDynamoLocal, toLambdaRecord } from 'dynafold/local';

const files = process.argv.slice(2);
// The handlers run without OpenTelemetry: the app has not installed its optional API (traced.mjs runs them with it).
assert.throws(() => createRequire(import.meta.url).resolve('@opentelemetry/api'), /Cannot find module/);
const dynamo = await startDynamoLocal();
const { endpoint, region, credentials } = dynamo.clientConfig;
Object.assign(process.env, {
  AWS_ENDPOINT_URL_DYNAMODB: endpoint,
  AWS_REGION: region,
  AWS_ACCESS_KEY_ID: credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
});
const client = new DynamoDBClient(dynamo.clientConfig);
const streams = new DynamoDBStreamsClient(dynamo.clientConfig);
try {
  for (const [index, file] of files.entries()) await project(file, `events-${index}`, `views-${index}`);
} finally {
  client.destroy();
  streams.destroy();
  await dynamo.stop();
}

/** Loads the bundle on its own tables (which it reads from the environment on load, as a deployed function does) and projects through it. */
async function project(file, eventsTable, viewsTable) {
  Object.assign(process.env, { EVENTS_TABLE: eventsTable, VIEWS_TABLE: viewsTable });
  const path = resolve(file);
  const bundle = path.endsWith('.cjs') ? createRequire(import.meta.url)(path) : await import(pathToFileURL(path).href);
  const { handler, orders, summaries } = bundle;
  const created = await client.send(new CreateTableCommand(eventsTableDefinition(eventsTable)));
  await client.send(new CreateTableCommand(readModelTableDefinition(viewsTable, [summaries])));
  const streamArn = created.TableDescription?.LatestStreamArn ?? '';
  await orders.append({ orderId: 'o-1' }, [
    { type: 'OrderPlaced', data: { customer: 'ada' } },
    { type: 'ItemAdded', data: { sku: 'a', price: 2.5 } },
    { type: 'ItemAdded', data: { sku: 'b', price: 4 } },
  ]);
  const records = await readStreamRecords(streams, streamArn);
  // An append is one item, a commit of its events: one stream record.
  assert.equal(records.length, 1, `${file}: expected the append's one commit on the stream, read ${records.length} records`);
  const response = await handler({ Records: records.map((record) => toLambdaRecord(record, { streamArn, region })) });
  assert.deepEqual(response, { batchItemFailures: [] }, `${file}: the handler reported failures`);
  const row = await summaries.get({ orderId: 'o-1' });
  assert.deepEqual(
    { customer: row?.customer, items: row?.items, total: row?.total, version: row?.version },
    { customer: 'ada', items: 2, total: 6.5, version: 3 },
    `${file}: the projected row`,
  );
  console.log(`${file} on Node ${process.versions.node}: an append of 3 events projected, row ok`);
}
