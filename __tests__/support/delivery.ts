import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import fc from 'fast-check';
import type { PartialBatchResponse } from 'dynafold/lambda';
import { randomInt, seededRandom, shuffle } from './random';
import { asLambdaRecord } from './stream-records';

/**
 * How Lambda (or the poller) might deliver a stream's records: shuffled, some duplicated, split into
 * batches on parallel lanes (ParallelizationFactor > 1), half of them in Lambda's JSON shape, each lane
 * retrying a batch from the first record its response reports.
 */
export interface Delivery {
  readonly seed: number;
  readonly lanes: number;
  readonly maxBatch: number;
  readonly duplicateRate: number;
  readonly lambdaShapeRate: number;
}

export const deliveries: fc.Arbitrary<Delivery> = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  lanes: fc.integer({ min: 1, max: 4 }),
  maxBatch: fc.integer({ min: 1, max: 12 }),
  duplicateRate: fc.constantFrom(0, 0.2, 0.5),
  lambdaShapeRate: fc.constantFrom(0, 0.5, 1),
});

/** A lane retrying one batch more often than this is stuck: the property fails instead of hanging. */
const MAX_TRIES_PER_BATCH = 40;

/**
 * Delivers `records` as `delivery` says, calling `handle` with each batch and retrying from the first
 * reported failure. Resolves the number of retried batches.
 */
export async function deliver(
  records: ReadonlyArray<_Record>,
  delivery: Delivery,
  handle: (batch: unknown[]) => Promise<PartialBatchResponse>,
): Promise<number> {
  const random = seededRandom(delivery.seed);
  const copies = shuffle(
    records.flatMap((record) => (random() < delivery.duplicateRate ? [record, record] : [record])),
    random,
  );
  const lanes: unknown[][][] = Array.from({ length: delivery.lanes }, () => []);
  for (let start = 0; start < copies.length;) {
    const size = randomInt(random, 1, delivery.maxBatch);
    const batch = copies.slice(start, start + size).map((record) => (random() < delivery.lambdaShapeRate ? asLambdaRecord(record) : record));
    lanes[randomInt(random, 0, lanes.length - 1)]?.push(batch);
    start += size;
  }
  let retries = 0;
  await Promise.all(
    lanes.map(async (batches) => {
      for (let batch of batches) {
        for (let tries = 1; ; tries++) {
          const { batchItemFailures } = await handle(batch);
          const first = batchItemFailures[0];
          if (first === undefined) break;
          if (tries >= MAX_TRIES_PER_BATCH) throw new Error(`a batch still failed after ${tries} tries: ${JSON.stringify(batchItemFailures)}`);
          retries++;
          batch = batch.slice(batch.findIndex((record) => (record as _Record).dynamodb?.SequenceNumber === first.itemIdentifier));
        }
      }
    }),
  );
  return retries;
}

/** Runs of each property in `npm test`; `DYNAFOLD_PROPERTY_RUNS` sets a long run. */
export function propertyRuns(inTests: number): number {
  const configured = Number(process.env['DYNAFOLD_PROPERTY_RUNS']);
  return Number.isInteger(configured) && configured > 0 ? configured : inTests;
}

/** A test's timeout for a property of `inTests` cases in `npm test`: 10 s a case, at least 10 minutes. */
export function propertyTimeout(inTests: number): number {
  return Math.max(600_000, propertyRuns(inTests) * 10_000);
}

/** fast-check settings shared by the property tests: a replayable seed from `DYNAFOLD_PROPERTY_SEED`. */
export function propertySettings(inTests: number): fc.Parameters<unknown> {
  const seed = Number(process.env['DYNAFOLD_PROPERTY_SEED']);
  return { numRuns: propertyRuns(inTests), ...(Number.isInteger(seed) ? { seed } : {}), endOnFailure: false };
}
