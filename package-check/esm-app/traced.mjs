/**
 * The package's tracing as an app with OpenTelemetry gets it: an SDK registered (the in-memory exporter),
 * then an append inside a request's span and its projection by `lambdaHandler`, through each way the app
 * may load dynafold: its ES module build imported, its CommonJS build required, and the handler bundled by
 * esbuild as ESM and as CommonJS (each bundle with its own copy of `@opentelemetry/api`, which finds the
 * SDK the app registered). Each must record the append's span and a batch span linked to it.
 *
 *   node traced.mjs
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { build } from 'esbuild';
import { eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { readStreamRecords, startDynamoLocal, toLambdaRecord } from 'dynafold/local';

const exporter = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));

for (const format of ['esm', 'cjs']) {
  await build({
    entryPoints: ['handler.ts'],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format,
    ...(format === 'esm' ? { mainFields: ['module', 'main'] } : {}),
    outfile: `dist/traced-handler.${format === 'esm' ? 'mjs' : 'cjs'}`,
    logLevel: 'warning',
  });
}

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
const require = createRequire(import.meta.url);
const tracedApp = require('./traced-app.cjs');
const loaders = {
  'the ES module build': async () => tracedApp({ dynafold: await import('dynafold'), lambda: await import('dynafold/lambda') }),
  'the CommonJS build': async () => tracedApp({ dynafold: require('dynafold'), lambda: require('dynafold/lambda') }),
  'an ESM bundle': async () => import(pathToFileURL(resolve('dist/traced-handler.mjs')).href),
  'a CommonJS bundle': async () => require(resolve('dist/traced-handler.cjs')),
};
try {
  let index = 0;
  for (const [name, load] of Object.entries(loaders)) await project(name, load, index++);
} finally {
  client.destroy();
  streams.destroy();
  await dynamo.stop();
}

/** Appends in a request's span and projects through the handler `load` gives; the batch's span must link to the append's. */
async function project(name, load, index) {
  const eventsTable = `traced-events-${index}`;
  Object.assign(process.env, { EVENTS_TABLE: eventsTable, VIEWS_TABLE: `traced-views-${index}` });
  const { handler, orders, summaries } = await load();
  const created = await client.send(new CreateTableCommand(eventsTableDefinition(eventsTable)));
  await client.send(new CreateTableCommand(readModelTableDefinition(process.env.VIEWS_TABLE, [summaries])));
  const streamArn = created.TableDescription?.LatestStreamArn ?? '';
  exporter.reset();
  await trace.getTracer('app').startActiveSpan('POST /orders', async (span) => {
    await orders.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
    span.end();
  });
  const records = await readStreamRecords(streams, streamArn);
  const response = await handler({ Records: records.map((record) => toLambdaRecord(record, { streamArn, region })) });
  assert.deepEqual(response, { batchItemFailures: [] }, `${name}: the handler reported failures`);
  const spans = exporter.getFinishedSpans();
  const append = spans.find((span) => span.name === 'append Order');
  const batch = spans.find((span) => span.name === `process ${eventsTable}`);
  assert.ok(append !== undefined && batch !== undefined, `${name}: spans recorded: ${spans.map((span) => span.name).join(', ')}`);
  assert.deepEqual(
    batch.links.map((link) => link.context.spanId),
    [append.spanContext().spanId],
    `${name}: the batch's span links to the append's`,
  );
  console.log(`${name} on Node ${process.versions.node}: the append and its projection traced, joined by a link`);
}
