import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { z } from 'zod';
import * as lib from '../lib';
import { processBatch } from '../lib/lambda';
import { readStreamRecords, startDynamoLocal, toLambdaRecord } from '../lib/local';
class Idle extends MetricReader { protected override async onForceFlush() {} protected override async onShutdown() {} }
const events = { OrderPlaced: z.object({ customer: z.string() }), ItemAdded: z.object({ sku: z.string(), price: z.number() }) };
const summary = z.object({ orderId: z.string(), customer: z.string(), items: z.number(), version: z.number() });
async function run() {
  const local = await startDynamoLocal({ heapMb: 1024 });
  const client = new DynamoDBClient(local.clientConfig);
  const streams = new DynamoDBStreamsClient(local.clientConfig);
  const created = await client.send(new CreateTableCommand(lib.eventsTableDefinition('events')));
  const key = { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } };
  await client.send(new CreateTableCommand(lib.readModelTableDefinition('views', [new lib.ReadModel({ client, table: 'views', name: 'P', schema: summary, key })])));
  const stream = new lib.EventStream({ client, table: 'events', name: 'Order', streamId: ['orderId'], events });
  for (let o = 0; o < 300; o++) for (let i = 0; i < 3; i++) await stream.append({ orderId: `o-${o}` }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }]);
  const records = (await readStreamRecords(streams, created.TableDescription?.LatestStreamArn ?? '')).map((r) => toLambdaRecord(r));
  if (process.env.MODE !== 'none') {
    if (process.env.MODE !== 'metrics') trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: { export: (_s, done) => done({ code: 0 }), shutdown: async () => undefined } })] }));
    if (process.env.MODE !== 'traces') metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new Idle()] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  const cpu: number[] = [];
  for (let round = 0; round < 12; round++) {
    const model = new lib.ReadModel({ client, table: 'views', name: `R${round}`, schema: summary, key });
    const projection = new lib.Projection({ stream, readModel: model, key: (id) => ({ orderId: id.orderId }), initial: (id) => ({ orderId: id.orderId, customer: '', items: 0, version: 0 }), evolve: (row) => ({ ...row, items: row.items + 1 }), checkpoint: 'version' });
    const before = process.cpuUsage();
    await processBatch(records, { projections: { s: projection }, logger: false });
    const used = process.cpuUsage(before);
    if (round >= 4) cpu.push((used.user + used.system) / 900);
  }
  console.log(process.env.MODE, cpu.sort((a, b) => a - b)[4]?.toFixed(0));
  client.destroy(); streams.destroy(); await local.stop();
}
void run();
