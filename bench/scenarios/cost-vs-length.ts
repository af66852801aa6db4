import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { ReadModifyWrite } from '../baselines/read-modify-write';
import { ReloadAndFold } from '../baselines/reload-and-fold';
import { ViewRows } from '../baselines/view-rows';
import { billed } from '../cost/billed';
import { clients } from '../support/local';
import { evolveSummary, fillOrder, initialSummary, orderTables, summaries, summaryProjection } from '../support/orders';
import { asLambdaRecord, eventOf, readAllRecords } from '../support/records';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { chunks, pool } from '../support/stats';

const LENGTHS = [10, 100, 1000];
const K = 10; // the last k events of each stream are delivered
const BATCH = 5; // in batches of 5, in order

interface Cost {
  requests: number;
  itemsRead: number;
  ms: number;
  /** AWS-billed request units (bench/cost), and their on-demand dollars per million events. */
  billedReadUnits: number;
  billedWriteUnits: number;
  dollarsPerMillion: number;
}

/**
 * Cost vs stream length: rows are projected up to version n − k; the last k events are then delivered in
 * order, in batches. Per applied event: requests and items read, for dynafold and the two baselines.
 */
export const costVsLength: Scenario = {
  name: 'cost',
  title: 'Cost vs stream length',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const c = clients(context.endpoint);
    const perLength = context.quick ? 1 : 5;
    const results: Record<number, Record<string, Cost>> = {};
    try {
      const { events, views, stream } = await orderTables(c.client, 'cost');
      const bill = await billed(c.client);
      const ids = (length: number) => Array.from({ length: perLength }, (_, i) => `len${length}-${i}`);
      await pool(LENGTHS.length * perLength, 8, (i) => {
        const length = LENGTHS[Math.floor(i / perLength)] as number;
        return fillOrder(stream, ids(length)[i % perLength] as string, length, { singlesAfter: length - K });
      });
      const all = await readAllRecords(c.streams, events.streamArn);
      const byOrder = new Map<string, _Record[]>();
      for (const record of all) {
        const event = eventOf(record);
        if (event === undefined) continue;
        let list = byOrder.get(event.streamId);
        if (list === undefined) byOrder.set(event.streamId, (list = []));
        list.push(record);
      }

      for (const length of LENGTHS) {
        const model = `Len${length}`;
        const readModel = summaries(c.client, views, `${model}Dynafold`);
        const projection = summaryProjection(stream, readModel);
        const reloadRows = new ViewRows(c.documents, views, `${model}Reload`);
        const reload = new ReloadAndFold(reloadRows, events.name);
        const rmwRows = new ViewRows(c.documents, views, `${model}Rmw`);
        const rmw = new ReadModifyWrite(rmwRows);
        // Set up: every row at version n − k (not measured).
        for (const orderId of ids(length)) {
          const head = await stream.read({ orderId }, { toVersion: length - K });
          await projection.applyBatch(head);
          const state = head.reduce(evolveSummary, initialSummary(orderId));
          await rmwRows.put(state);
          await reloadRows.put(state);
        }
        const batches = ids(length).flatMap((orderId) => chunks((byOrder.get(orderId) ?? []).slice(-K).map(asLambdaRecord), BATCH));
        const measure = async (handle: (batch: ReturnType<typeof asLambdaRecord>[]) => Promise<unknown>): Promise<Cost> => {
          c.meter.reset();
          bill.reset();
          const start = performance.now();
          for (const batch of batches) await handle(batch);
          const ms = performance.now() - start;
          const applied = ids(length).length * K;
          return {
            requests: c.meter.total() / applied,
            itemsRead: c.meter.itemsRead / applied,
            ms: ms / applied,
            billedReadUnits: bill.readUnits / applied,
            billedWriteUnits: bill.writeUnits / applied,
            dollarsPerMillion: (bill.dollars() / applied) * 1e6,
          };
        };
        results[length] = {
          dynafold: await measure((batch) => projection.processBatch(batch, { source: 'lambda' })),
          reload: await measure((batch) => reload.handle(batch)),
          rmw: await measure((batch) => rmw.handle(batch)),
        };
        // Every implementation must have reached the head.
        for (const orderId of ids(length)) {
          const rows = [await readModel.get({ orderId }, { consistent: true }), await rmwRows.get(orderId), await reloadRows.get(orderId)];
          if (rows.some((row) => row?.version !== length)) throw new Error(`cost: a row of ${orderId} is not at version ${length}`);
        }
        context.log(`  length ${length}: ${JSON.stringify(results[length])}`);
      }
    } finally {
      c.destroy();
    }

    const rows: Row[] = [];
    const at = (length: number, impl: string) => results[length]?.[impl] as Cost;
    // dynafold's figure beside a baseline's at one stream length, and their ratio.
    const compare = (length: number, label: string, metric: keyof Cost, baseline: 'reload' | 'rmw'): Row => {
      const ours = at(length, 'dynafold')[metric];
      const theirs = at(length, baseline)[metric];
      const against = baseline === 'reload' ? 'reload-and-fold' : 'read-modify-write';
      return {
        scenario: '1 cost',
        measure: `${label}, n=${length}`,
        dynafold: ours,
        baseline: theirs,
        against,
        ...(theirs === 0 ? {} : { ratio: ours / theirs }),
      };
    };
    for (const length of LENGTHS)
      rows.push(compare(length, 'requests/event', 'requests', 'reload'), compare(length, 'items read/event', 'itemsRead', 'reload'));
    for (const length of LENGTHS) rows.push(compare(length, 'requests/event', 'requests', 'rmw'));
    for (const length of LENGTHS) rows.push(compare(length, 'ms/event', 'ms', 'reload'));
    for (const baseline of ['reload', 'rmw'] as const) {
      for (const length of LENGTHS) {
        rows.push(
          compare(length, 'AWS-billed write units/event', 'billedWriteUnits', baseline),
          compare(length, 'AWS-billed read units/event', 'billedReadUnits', baseline),
          compare(length, '$ per million events (on-demand us-east-1)', 'dollarsPerMillion', baseline),
        );
      }
    }
    const requests = LENGTHS.map((length) => at(length, 'dynafold').requests);
    const growth = Math.max(...requests) / Math.min(...requests);
    const reloadItems = at(1000, 'reload').itemsRead / at(10, 'reload').itemsRead;
    rows.push({
      scenario: '1 cost',
      measure: 'requests/event, max/min over n',
      dynafold: growth,
      baseline: reloadItems,
      against: 'reload items n=1000/n=10',
      target: 'flat: ≤ 1.10',
      pass: growth <= 1.1,
    });
    return {
      rows,
      notes: [
        `${perLength} streams per length; the last ${K} events delivered in order, in batches of ${BATCH}, as Lambda-shaped records.`,
        'n=10 delivers whole streams: the first batch finds no row, so dynafold reads 1 item per 10 events there, 1 per 5 above.',
        "AWS-billed units: the same requests priced by AWS's rules (bench/cost/pricing.ts) at on-demand us-east-1 prices; the stream records themselves are free to a Lambda trigger.",
      ],
      details: { lengths: LENGTHS, k: K, batch: BATCH, perLength, results },
    };
  },
};
