import type { DynamoDBRecord } from 'aws-lambda';
import { Projection } from 'dynafold';
import { outboxTableDefinition } from 'dynafold/outbox';
import { billed } from '../cost/billed';
import { deliverOnLanes } from '../support/lanes';
import { clients, createTable } from '../support/local';
import { evolveSummary, fillOrder, initialSummary, orderTables, summaries, type OrderStream, type Summaries } from '../support/orders';
import { asLambdaRecord, eventOf, readAllRecords } from '../support/records';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { chunks } from '../support/stats';

const SCENARIO = '10 hot row';
const LANES = [1, 4, 10] as const; // ParallelizationFactor
const BATCH = 100;
// Lambda's default for a stream event source mapping: retry until the record expires.
const MAX_RETRY_ATTEMPTS = Number.POSITIVE_INFINITY;

/** Batches of the row's records in stream order, dealt round-robin to `lanes` lanes. */
function dealt(records: ReadonlyArray<DynamoDBRecord>, lanes: number): DynamoDBRecord[][][] {
  const out: DynamoDBRecord[][][] = Array.from({ length: lanes }, () => []);
  chunks(records, BATCH).forEach((batch, i) => out[i % lanes]?.push(batch));
  return out;
}

/** The order summary projection, with an outbox message per event when `outbox` names its table. */
function projectionOf(stream: OrderStream, model: Summaries, outbox: string | undefined) {
  return new Projection({
    stream,
    readModel: model,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => evolveSummary(state, event),
    checkpoint: 'version',
    ...(outbox === undefined ? {} : { outbox: { table: outbox, message: (event: { type: string }) => ({ type: event.type }) } }),
  });
}

interface HotRun {
  readonly lanes: number;
  readonly outbox: boolean;
  readonly ms: number;
  readonly eventsPerSecond: number;
  readonly invocations: number;
  readonly retries: number;
  readonly givenUp: number;
  /** Writes refused by their condition (a lane lost the race for the row) and cancelled transactions. */
  readonly lostRaces: number;
  /** Requests by operation: Query are loads and gap reads of events, TransactWriteItems/PutItem the row's writes. */
  readonly requests: Readonly<Record<string, number>>;
  readonly itemsRead: number;
  readonly billedWriteUnits: number;
  readonly billedReadUnits: number;
}

/**
 * One hot row: a single order of 2,000 events (200 in the quick run), its real stream records in batches of
 * 100 dealt round-robin to 1, 4 and 10 lanes (ParallelizationFactor), with and without an outbox; each run
 * on a fresh row. Lanes race for the one row: the figures say what the races cost (lost writes, gap reads,
 * outbox writes) beside the time. The goal: PF 10 no slower than PF 1.
 */
export const hotRow: Scenario = {
  name: 'hot',
  title: 'One hot row on parallel lanes',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const c = clients(context.endpoint);
    const length = context.quick ? 200 : 2000;
    const runs: HotRun[] = [];
    let lostRaces = 0;
    c.client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          const name = error instanceof Error ? error.name : '';
          if (name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException') lostRaces++;
          throw error;
        }
      },
      { step: 'initialize', name: 'hotLostRaces' },
    );
    try {
      const { events, views, stream } = await orderTables(c.client, 'hot');
      const outbox = await createTable(c.client, outboxTableDefinition, 'hot-outbox');
      // One event an append, as the writers of a hot row append: a record each.
      await fillOrder(stream, 'hot-1', length, { perAppend: 1 });
      const records = (await readAllRecords(c.streams, events.streamArn)).filter((r) => eventOf(r) !== undefined).map(asLambdaRecord);
      const bill = await billed(c.client);
      // Two rounds in opposite orders: DynamoDB Local warms up and slows as stream records pile up, so a
      // lane count run first or last alone would be favoured; each figure is the mean of its two runs.
      const order = [...LANES, ...[...LANES].reverse()];
      for (const withOutbox of [false, true]) {
        for (const [round, lanes] of order.entries()) {
          const model = summaries(c.client, views, `Hot${lanes}${withOutbox ? 'Outbox' : ''}${round}`);
          const projection = projectionOf(stream, model, withOutbox ? outbox.name : undefined);
          c.meter.reset();
          bill.reset();
          lostRaces = 0;
          const outcome = await deliverOnLanes(
            dealt(records, lanes),
            async (batch) => (await projection.processBatch(batch, { source: 'lambda' })).response,
            MAX_RETRY_ATTEMPTS,
          );
          const row = await model.get({ orderId: 'hot-1' }, { consistent: true });
          if (row?.version !== length) throw new Error(`hot row: PF ${lanes} left the row at version ${String(row?.version)}, not ${length}`);
          const run: HotRun = {
            lanes,
            outbox: withOutbox,
            ms: outcome.ms,
            eventsPerSecond: length / (outcome.ms / 1000),
            invocations: outcome.invocations,
            retries: outcome.retries,
            givenUp: outcome.givenUp,
            lostRaces,
            requests: Object.fromEntries(c.meter.requests),
            itemsRead: c.meter.itemsRead,
            billedWriteUnits: bill.writeUnits,
            billedReadUnits: bill.readUnits,
          };
          runs.push(run);
          context.log(`  PF ${lanes}${withOutbox ? ' + outbox' : ''}: ${JSON.stringify(run)}`);
        }
      }
    } finally {
      c.destroy();
    }
    return { rows: rowsOf(runs, length), notes: notes(length), details: { length, batch: BATCH, runs } };
  },
};

/** The mean of each lane count's runs (one per round): times and counts averaged. */
function meanRuns(runs: ReadonlyArray<HotRun>): HotRun[] {
  const configs = new Map<string, HotRun[]>();
  for (const run of runs) {
    const key = `${run.lanes}${run.outbox}`;
    configs.set(key, [...(configs.get(key) ?? []), run]);
  }
  return [...configs.values()].map((same) => {
    const mean = (of: (run: HotRun) => number) => same.reduce((sum, run) => sum + of(run), 0) / same.length;
    const requests: Record<string, number> = {};
    for (const run of same) for (const [name, count] of Object.entries(run.requests)) requests[name] = (requests[name] ?? 0) + count / same.length;
    const first = same[0] as HotRun;
    return {
      lanes: first.lanes,
      outbox: first.outbox,
      ms: mean((run) => run.ms),
      eventsPerSecond: mean((run) => run.eventsPerSecond),
      invocations: mean((run) => run.invocations),
      retries: mean((run) => run.retries),
      givenUp: mean((run) => run.givenUp),
      lostRaces: mean((run) => run.lostRaces),
      requests,
      itemsRead: mean((run) => run.itemsRead),
      billedWriteUnits: mean((run) => run.billedWriteUnits),
      billedReadUnits: mean((run) => run.billedReadUnits),
    };
  });
}

function rowsOf(measured: ReadonlyArray<HotRun>, length: number): Row[] {
  const runs = meanRuns(measured);
  const rows: Row[] = [];
  for (const outbox of [false, true]) {
    const label = outbox ? ', outbox' : '';
    const one = runs.find((r) => r.lanes === 1 && r.outbox === outbox);
    if (one === undefined) continue;
    for (const run of runs.filter((r) => r.outbox === outbox && r.lanes !== 1)) {
      const ratio = run.eventsPerSecond / one.eventsPerSecond;
      const goal = run.lanes === 10;
      rows.push({
        scenario: SCENARIO,
        measure: `events/s PF ${run.lanes}${label} (${length} events)`,
        dynafold: run.eventsPerSecond,
        baseline: one.eventsPerSecond,
        against: `PF 1${label}`,
        ratio,
        ...(goal ? { target: '≥ 1.00×', pass: ratio >= 1 } : {}),
      });
    }
    for (const run of runs.filter((r) => r.outbox === outbox)) {
      const perEvent = (n: number) => n / length;
      const queries = run.requests['Query'] ?? 0;
      const writes = (run.requests['TransactWriteItems'] ?? 0) + (run.requests['PutItem'] ?? 0) + (run.requests['UpdateItem'] ?? 0);
      rows.push(
        { scenario: SCENARIO, measure: `PF ${run.lanes}${label}: lost races per 100 events`, dynafold: perEvent(run.lostRaces) * 100 },
        { scenario: SCENARIO, measure: `PF ${run.lanes}${label}: Queries (loads, gap reads) per 100 events`, dynafold: perEvent(queries) * 100 },
        { scenario: SCENARIO, measure: `PF ${run.lanes}${label}: row writes per 100 events`, dynafold: perEvent(writes) * 100 },
        { scenario: SCENARIO, measure: `PF ${run.lanes}${label}: items read per event`, dynafold: perEvent(run.itemsRead) },
        {
          scenario: SCENARIO,
          measure: `PF ${run.lanes}${label}: AWS-billed write + read units per event`,
          dynafold: perEvent(run.billedWriteUnits + run.billedReadUnits),
        },
      );
    }
  }
  return rows;
}

function notes(length: number): string[] {
  return [
    `One order of ${length} events; its stream records in batches of ${BATCH}, dealt round-robin to the lanes (a lane's batches in order, the lanes concurrent), Lambda's retry-from-the-failed-record contract without a retry limit; two rounds, the lane counts in opposite orders, each figure the mean of its two runs on a fresh row each. With an outbox, every event also writes a message in the row's transaction.`,
    'Lost races are writes refused by their condition (another lane wrote the row first) and cancelled transactions; Queries are the loads and gap reads of events the projector makes.',
  ];
}
