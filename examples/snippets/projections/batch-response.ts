import type {
  LambdaStreamEvent,
  PartialBatchResponse,
} from 'dynafold/lambda';
import { OrderSummaryProjection } from './projection';

// #region batch-response
import { BatchResponse, batchResponse } from 'dynafold/lambda';

export async function handle(
  event: LambdaStreamEvent,
): Promise<PartialBatchResponse> {
  const result = await OrderSummaryProjection.processBatch(
    event.Records,
    { source: 'lambda' },
  );
  result.failedRecords.push(7);
  return batchResponse(event.Records, result.failedRecords, {
    source: 'lambda',
  });
}

export const failing = (event: LambdaStreamEvent) =>
  new BatchResponse(event.Records, { source: 'lambda' })
    .fail(3)
    .fail(7)
    .build();
// #endregion batch-response
