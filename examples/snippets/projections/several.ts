import type {
  LambdaStreamEvent,
  PartialBatchResponse,
} from 'dynafold/lambda';
import { PaymentEvents } from '../store/model';
import { OrderSummaryProjection } from './projection';

const ZoneReadingProjection = OrderSummaryProjection;

// #region several
import { processBatch } from 'dynafold/lambda';

export async function handle(
  event: LambdaStreamEvent,
): Promise<PartialBatchResponse> {
  const result = await processBatch(event.Records, {
    projections: [OrderSummaryProjection, ZoneReadingProjection],
    streams: { Payment: PaymentEvents },
    source: 'lambda',
  });
  // Per projection, under its name
  console.log(result.outcomes['order-summaries']);
  for (const { event, position } of result.unrouted)
    console.log(position, event.type);
  return result.response;
}
// #endregion several
