type Handler<R> = (batch: R[]) => Promise<{ batchItemFailures: ReadonlyArray<{ itemIdentifier: string }> }>;

export interface LaneOutcome {
  /** Handler calls, retries included. */
  readonly invocations: number;
  readonly retries: number;
  /** Records still reported failed when a batch ran out of retries: dead-lettered, never applied by this delivery. */
  readonly givenUp: number;
  readonly ms: number;
}

/**
 * Delivers batches like a Lambda event source mapping with ParallelizationFactor = lanes.length: lanes run
 * concurrently, each lane's batches in order; a batch with failures is retried from its earliest failed
 * record (ReportBatchItemFailures) up to `maxRetryAttempts` times, then its failed records are given up.
 */
export async function deliverOnLanes<R extends { dynamodb?: { SequenceNumber?: string } }>(
  lanes: ReadonlyArray<ReadonlyArray<R[]>>,
  handler: Handler<R>,
  maxRetryAttempts: number,
): Promise<LaneOutcome> {
  let invocations = 0;
  let retries = 0;
  let givenUp = 0;
  const start = performance.now();
  await Promise.all(
    lanes.map(async (batches) => {
      for (const original of batches) {
        let batch = original;
        for (let attempt = 0; ; attempt++) {
          invocations++;
          const { batchItemFailures } = await handler(batch);
          if (batchItemFailures.length === 0) break;
          if (attempt >= maxRetryAttempts) {
            givenUp += batchItemFailures.length;
            break;
          }
          retries++;
          const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
          const from = batch.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? ''));
          batch = batch.slice(Math.max(0, from));
        }
      }
    }),
  );
  return { invocations, retries, givenUp, ms: performance.now() - start };
}
