/**
 * Delivers stream records the way a Lambda event source mapping with a ParallelizationFactor above 1
 * may: out of order, some twice, in batches spread over concurrent lanes, each lane retrying a batch
 * from the first record its function reported as failed. Here the order is harsher than Lambda's (it
 * keeps order per item; this shuffles everything), which a projection must not mind either.
 */
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import type { Random } from './random';

export interface DeliveryPlan {
  /** Concurrent lanes of the shard (ParallelizationFactor). */
  readonly lanes: number;
  /** Largest batch (BatchSize); batch sizes are drawn from 1 to it. */
  readonly batchSize: number;
  /** Share of records delivered twice. */
  readonly duplicateRate: number;
  /** Invocations of one batch before the lane gives up on it. */
  readonly maxAttempts: number;
}

export interface DeliveryStats {
  readonly records: number;
  readonly duplicates: number;
  readonly batches: number;
  readonly lanes: number;
  readonly invocations: number;
  /** Invocations that re-sent part of a batch after a partial failure. */
  readonly retries: number;
  /** Records named in `batchItemFailures`, over all invocations. */
  readonly reported: number;
  /** Batches still failing after `maxAttempts` invocations. */
  readonly gaveUp: number;
  readonly invocationMs: ReadonlyArray<number>;
  readonly ms: number;
}

type Handler = (
  event: DynamoDBStreamEvent,
) => Promise<DynamoDBBatchResponse>;

/** Shuffles and duplicates the records, cuts them into batches and deals the batches to lanes. */
function plan(
  records: ReadonlyArray<DynamoDBRecord>,
  random: Random,
  options: DeliveryPlan,
): {
  lanes: DynamoDBRecord[][][];
  duplicates: number;
  batches: number;
} {
  const copies = records.flatMap((record) =>
    random.next() < options.duplicateRate ? [record, record] : [record],
  );
  const shuffled = random.shuffle(copies);
  const lanes: DynamoDBRecord[][][] = Array.from(
    { length: options.lanes },
    () => [],
  );
  let batches = 0;
  for (let start = 0; start < shuffled.length; batches++) {
    const size = random.int(1, options.batchSize);
    lanes[random.int(0, options.lanes - 1)]?.push(
      shuffled.slice(start, start + size),
    );
    start += size;
  }
  return { lanes, duplicates: copies.length - records.length, batches };
}

export async function deliverLikeLambda(
  records: ReadonlyArray<DynamoDBRecord>,
  handler: Handler,
  random: Random,
  options: DeliveryPlan,
): Promise<DeliveryStats> {
  const { lanes, duplicates, batches } = plan(records, random, options);
  const invocationMs: number[] = [];
  let retries = 0;
  let reported = 0;
  let gaveUp = 0;

  // Lambda resumes a batch at the lowest failed record it was told about; `batchItemFailures` lists them in record order.
  const runBatch = async (batch: DynamoDBRecord[]) => {
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const { batchItemFailures } = await handler({ Records: batch });
      invocationMs.push(performance.now() - started);
      reported += batchItemFailures.length;
      const first = batchItemFailures[0];
      if (first === undefined) return;
      if (attempt === options.maxAttempts) {
        gaveUp++;
        return;
      }
      retries++;
      batch = batch.slice(
        Math.max(
          0,
          batch.findIndex(
            (record) =>
              record.dynamodb?.SequenceNumber === first.itemIdentifier,
          ),
        ),
      );
    }
  };

  const started = performance.now();
  await Promise.all(
    lanes.map(async (lane) => {
      for (const batch of lane) await runBatch(batch);
    }),
  );
  return {
    records: records.length,
    duplicates,
    batches,
    lanes: lanes.filter((lane) => lane.length > 0).length,
    invocations: invocationMs.length,
    retries,
    reported,
    gaveUp,
    invocationMs,
    ms: performance.now() - started,
  };
}
