import type { LambdaStreamEvent, PartialBatchResponse } from 'dynafold/lambda';
import { EventStream } from 'dynafold';
import { z } from 'zod';
import { client } from '../store/model';
import { OrderSummaryProjection } from './projection';

const PaymentEvents = new EventStream({
  client,
  table: 'events',
  name: 'Payment',
  streamId: ['paymentId'],
  events: { PaymentTaken: z.object({ amount: z.number() }) },
});
const ZoneReadingProjection = OrderSummaryProjection;

// #region several
import { processBatch } from 'dynafold';

export async function handle(event: LambdaStreamEvent): Promise<PartialBatchResponse> {
  const result = await processBatch(event.Records, {
    projections: { summaries: OrderSummaryProjection, zones: ZoneReadingProjection },
    streams: { Payment: PaymentEvents },
    source: 'lambda',
  });
  console.log(result.outcomes.summaries); // per projection, under its name
  for (const { event, position } of result.unrouted) console.log(position, event.type);
  return result.response;
}
// #endregion several
