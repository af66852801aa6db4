import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, olderVersion } from 'dynafold';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { nsPerCall } from '../support/stats';

const ItemAddedV1 = z.object({ sku: z.string(), price: z.number() });
const ItemAddedV2 = z.object({ sku: z.string(), priceCents: z.number().int() });
const ItemAdded = z.object({ sku: z.string(), priceCents: z.number().int(), quantity: z.number().int() });

/** The same stream without versions and with ItemAdded at version 3 (two upcasts from version 1). */
function streams(client: DynamoDBClient) {
  const base = { client, table: 'bench', name: 'Order', streamId: ['orderId'] } as const;
  return {
    plain: new EventStream({ ...base, events: { ItemAdded } }),
    versioned: new EventStream({
      ...base,
      events: { ItemAdded },
      versions: {
        ItemAdded: {
          older: [
            olderVersion(1, ItemAddedV1, (v1) => ({ sku: v1.sku, priceCents: Math.round(v1.price * 100) })),
            olderVersion(2, ItemAddedV2, (v2) => ({ ...v2, quantity: 1 })),
          ],
        },
      },
    }),
  };
}

const item = (data: Record<string, unknown>, typeVersion?: number) => ({
  pk: 'Order#o-1',
  sk: 'e#0000000001',
  _df: 'Order',
  type: 'ItemAdded',
  data,
  ts: Date.parse('2026-01-01T00:00:00.000Z'),
  ...(typeVersion === undefined ? {} : { tv: typeVersion }),
});

/**
 * What upcasting costs on the decode every reader goes through (pure CPU, no DynamoDB): an event at
 * today's version of a type with versions, against the same stream without versions (the target: the
 * same within noise), and an event stored at version 1, upcast twice.
 */
export const upcast: Scenario = {
  name: 'upcast',
  title: 'Decode cost of versioned event types',
  run(context: ScenarioContext): Promise<ScenarioResult> {
    const client = new DynamoDBClient({ region: 'local', endpoint: 'http://127.0.0.1:1' });
    try {
      const { plain, versioned } = streams(client);
      const count = context.quick ? 20_000 : 200_000;
      const rounds = context.quick ? 5 : 11;
      const today = item({ sku: 'a', priceCents: 150, quantity: 2 }, 3);
      const todayPlain = item({ sku: 'a', priceCents: 150, quantity: 2 });
      const old = item({ sku: 'a', price: 1.5 });
      const [plainNs = NaN, todayNs = NaN, upcastNs = NaN] = nsPerCall(
        [() => plain.decodeItem(todayPlain), () => versioned.decodeItem(today), () => versioned.decodeItem(old)],
        count,
        rounds,
      );
      const rows: Row[] = [
        {
          scenario: 'upcast',
          measure: "decode at today's version, ns",
          dynafold: todayNs,
          baseline: plainNs,
          against: 'no versions',
          ratio: todayNs / plainNs,
          target: '≤ 1.1×',
          pass: todayNs <= plainNs * 1.1,
        },
        {
          scenario: 'upcast',
          measure: 'decode from version 1 (2 upcasts), ns',
          dynafold: upcastNs,
          baseline: plainNs,
          against: 'no versions',
          ratio: upcastNs / plainNs,
        },
        { scenario: 'upcast', measure: 'cost per upcast, ns', dynafold: (upcastNs - todayNs) / 2 },
      ];
      return Promise.resolve({ rows, notes: [], details: { plainNs, todayNs, upcastNs, count, rounds } });
    } finally {
      client.destroy();
    }
  },
};
