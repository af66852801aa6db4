// Not committed: main's lib against this branch's, with no SDK registered (@opentelemetry/api installed, as here).
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { z } from 'zod';
import * as branch from '../lib';
import * as branchLambda from '../lib/lambda';
import * as main from './main/lib';
import * as mainLambda from './main/lib/lambda';
import { readStreamRecords, startDynamoLocal, toLambdaRecord } from '../lib/local';

const events = { OrderPlaced: z.object({ customer: z.string() }), ItemAdded: z.object({ sku: z.string(), price: z.number() }) };
const summary = z.object({ orderId: z.string(), customer: z.string(), items: z.number(), version: z.number() });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function run() {
  const local = await startDynamoLocal({ heapMb: 1024 });
  const client = new DynamoDBClient(local.clientConfig);
  const streams = new DynamoDBStreamsClient(local.clientConfig);
  try {
    const created = await client.send(new CreateTableCommand(branch.eventsTableDefinition('events')));
    const probe = new branch.ReadModel({ client, table: 'views', name: 'P', schema: summary, key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } } });
    await client.send(new CreateTableCommand(branch.readModelTableDefinition('views', [probe])));
    const libs = { main: { lib: main, lambda: mainLambda }, branch: { lib: branch, lambda: branchLambda } } as const;
    const writer = new branch.EventStream({ client, table: 'events', name: 'Order', streamId: ['orderId'], events });
    const orders = 300;
    for (let o = 0; o < orders; o++) {
      await writer.append({ orderId: `o-${o}` }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
      await writer.append({ orderId: `o-${o}` }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }]);
      await writer.append({ orderId: `o-${o}` }, [{ type: 'ItemAdded', data: { sku: 'pen', price: 2 } }]);
    }
    const records = (await readStreamRecords(streams, created.TableDescription?.LatestStreamArn ?? '')).map((r) => toLambdaRecord(r));
    const cpu: Record<string, number[]> = { main: [], branch: [] };
    const decode: Record<string, number[]> = { main: [], branch: [] };
    const item = { pk: 'Order#o-1', sk: 'e#0000000001', _df: 'Order', ts: 1767225600000, type: 'ItemAdded', data: { sku: 'a', price: 1.5 } };
    for (let round = 0; round < 16; round++) {
      for (const name of (round % 2 === 0 ? ['main', 'branch'] : ['branch', 'main']) as Array<keyof typeof libs>) {
        const { lib, lambda } = libs[name];
        const stream = new lib.EventStream({ client, table: 'events', name: 'Order', streamId: ['orderId'], events });
        const model = new lib.ReadModel({ client, table: 'views', name: `R${round}${name}`, schema: summary, key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } } });
        const projection = new lib.Projection({
          stream: stream as never, readModel: model as never,
          key: (id: Record<string, string>) => ({ orderId: id.orderId }),
          initial: (id: Record<string, string>) => ({ orderId: id.orderId, customer: '', items: 0, version: 0 }),
          evolve: (row: { items: number }, e: { type: string }) => (e.type === 'OrderPlaced' ? row : { ...row, items: row.items + 1 }),
          checkpoint: 'version',
        } as never);
        const before = process.cpuUsage();
        const result = await (lambda.processBatch as (r: unknown[], o: unknown) => Promise<{ failedRecords: number[] }>)(records, { projections: { s: projection }, logger: false });
        const used = process.cpuUsage(before);
        if (result.failedRecords.length > 0) throw new Error('failed');
        if (round >= 4) cpu[name]!.push((used.user + used.system) / (orders * 3));
      }
    }
    const decoders = Object.fromEntries(Object.entries(libs).map(([name, { lib }]) => [name, new lib.EventStream({ client, table: 'events', name: 'Order', streamId: ['orderId'], events })]));
    for (let round = 0; round < 15; round++) {
      for (const name of ['main', 'branch']) {
        const stream = decoders[name]!;
        const n = 200_000;
        const start = process.hrtime.bigint();
        for (let i = 0; i < n; i++) stream.decodeCommit(item);
        if (round >= 3) decode[name]!.push(Number(process.hrtime.bigint() - start) / n);
      }
    }
    console.log(JSON.stringify({ cpuUsPerEvent: { main: median(cpu.main!), branch: median(cpu.branch!) }, decodeNs: { main: median(decode.main!), branch: median(decode.branch!) }, cpu, decode }));
  } finally {
    client.destroy();
    streams.destroy();
    await local.stop();
  }
}
void run();
