import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { deliverOnLanes } from '../support/lanes';
import { evolveSummary, initialSummary, newEvents, type Summary } from '../support/orders';
import { asLambdaRecord, readAllRecords } from '../support/records';
import { chunks, pool, seededRandom, shuffle } from '../support/stats';
import { sample, time, type Metered, type Sample } from './measure';

export const EVENTS_PER_ORDER = 10;
const LANES = 10; // ParallelizationFactor
const BATCH = 100;
const MAX_RETRY_ATTEMPTS = 2;

/** The fold every order's row must equal once its 10 events are projected. */
export function expectedSummary(orderId: string): Summary {
  return newEvents(1, EVENTS_PER_ORDER).reduce((state, event, i) => evolveSummary(state, { ...event, version: i + 1 }), initialSummary(orderId));
}

/** Each order's 10 events in appends of 1–4 (the same plan for every peer), 16 orders at a time. */
export async function writeWorkload(m: Metered, orderIds: ReadonlyArray<string>): Promise<void> {
  const random = seededRandom(7);
  const plans = orderIds.map((orderId) => {
    const sizes: number[] = [];
    for (let left = EVENTS_PER_ORDER; left > 0; left -= sizes[sizes.length - 1] ?? left) sizes.push(Math.min(left, 1 + Math.floor(random() * 4)));
    return { orderId, sizes };
  });
  await pool(plans.length, 16, async (i) => {
    const { orderId, sizes } = plans[i] as { orderId: string; sizes: number[] };
    let version = 0;
    for (const size of sizes) {
      await m.peer.append(orderId, version, size);
      version += size;
    }
  });
}

/** Ids of the projected orders: their token tells their records from the other scenarios' in the same table. */
export const projectedIds = (orders: number) => Array.from({ length: orders }, (_, i) => `proj-${i}`);

/** The peer's stream records of the projected orders, as Lambda delivers them. */
export async function recordsOf(streams: DynamoDBStreamsClient, m: Metered): Promise<DynamoDBRecord[]> {
  const records = await readAllRecords(streams, m.peer.streamArn);
  return records.filter((record) => JSON.stringify(record.dynamodb?.Keys ?? {}).includes('proj')).map(asLambdaRecord);
}

/** In order, as Lambda delivers with its defaults (ParallelizationFactor 1): one lane, batches in shard order. */
export function inOrderLanes(records: ReadonlyArray<DynamoDBRecord>): DynamoDBRecord[][][] {
  return [chunks(records, BATCH)];
}

/** Shuffled: batches of 100 from the shuffled records dealt round-robin to 10 lanes. */
export function shuffledLanes(records: ReadonlyArray<DynamoDBRecord>, seed: number): DynamoDBRecord[][][] {
  const lanes: DynamoDBRecord[][][] = Array.from({ length: LANES }, () => []);
  chunks(shuffle(records, seededRandom(seed)), BATCH).forEach((batch, i) => lanes[i % LANES]?.push(batch));
  return lanes;
}

export interface Delivery extends Sample {
  /** Rows (or index entries) unequal to their fold after the delivery. */
  readonly wrong: number;
  readonly givenUp: number;
  readonly retries: number;
}

/** Delivers `lanes` to a fresh projection of the peer with Lambda's retry contract; a latency per handler call. */
export async function deliver(m: Metered, run: string, lanes: DynamoDBRecord[][][], expected: ReadonlyArray<Summary>): Promise<Delivery> {
  const projector = await m.peer.projector(run);
  let outcome = { givenUp: 0, retries: 0 };
  const s = await sample(m, expected.length * EVENTS_PER_ORDER, async (latency) => {
    outcome = await deliverOnLanes(
      lanes,
      async (batch) => {
        let response: Awaited<ReturnType<typeof projector.project>> = { batchItemFailures: [] };
        latency(await time(async () => (response = await projector.project(batch))));
        return response;
      },
      MAX_RETRY_ATTEMPTS,
    );
    return 0;
  });
  return { ...s, wrong: await projector.wrong(expected), givenUp: outcome.givenUp, retries: outcome.retries };
}
