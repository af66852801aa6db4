import type {
  LambdaStreamEvent,
  PartialBatchResponse,
} from 'dynafold/lambda';
import { OrderSummaryProjection } from './projection';

declare function publish(event: unknown): Promise<void>;

export async function processRecords(
  event: LambdaStreamEvent,
): Promise<PartialBatchResponse> {
  // #region process-batch
  const result = await OrderSummaryProjection.processBatch(
    event.Records,
    { source: 'lambda' },
  );
  return result.response; // { batchItemFailures: [{ itemIdentifier }] }
  // #endregion process-batch
}

// #region handler
import { lambdaHandler } from 'dynafold/lambda';

export const handler = lambdaHandler({
  projections: [OrderSummaryProjection],
  onBatch: async (result) => {
    // Each projection's outcomes, under its name
    for (const outcome of result.outcomes['order-summaries'] ?? []) {
      // Failed and parked outcomes have some too
      for (const applied of outcome.applied) await publish(applied);
    }
  },
});
// #endregion handler

// #region kinesis
import { kinesisHandler } from 'dynafold/lambda';

export const kinesis = kinesisHandler({
  projections: [OrderSummaryProjection],
}); // fits KinesisStreamHandler
// #endregion kinesis
