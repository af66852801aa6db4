import { z } from 'zod';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as branch from '../lib';
import * as main from './main/lib';
const client = new DynamoDBClient({ region: 'local', endpoint: 'http://127.0.0.1:1' });
const options = { client, table: 'bench', name: 'Order', streamId: ['orderId'], events: { ItemAdded: z.object({ sku: z.string(), price: z.number() }) } } as const;
const streams = process.env.SWAP ? [new branch.EventStream(options), new main.EventStream(options)] : [new main.EventStream(options), new branch.EventStream(options)];
const one = { pk: 'Order#o-1', sk: 'e#0000000001', _df: 'Order', ts: 1767225600000, type: 'ItemAdded', data: { sku: 'a', price: 1.5 } };
const ten = { pk: 'Order#o-1', sk: 'e#0000000001', _df: 'Order', ts: 1767225600000, count: 10, events: Array.from({ length: 10 }, () => ({ type: 'ItemAdded', data: { sku: 'a', price: 1.5 } })) };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
for (const [label, item] of [['one', one], ['ten', ten]] as const) {
  const samples: number[][] = [[], []];
  for (let round = 0; round < 31; round++) streams.forEach((stream, i) => { const n = 50_000; const t = process.hrtime.bigint(); for (let k = 0; k < n; k++) stream.decodeCommit(item); if (round > 4) samples[i]!.push(Number(process.hrtime.bigint() - t) / n); });
  console.log(label, 'main', median(samples[0]!).toFixed(0), 'branch', median(samples[1]!).toFixed(0));
}
client.destroy();
