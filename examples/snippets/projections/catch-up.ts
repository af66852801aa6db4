import { OrderSummaryProjection } from './projection';

export async function catchUpAndRebuild(): Promise<void> {
  // #region catch-up
  await OrderSummaryProjection.catchUp({ orderId: 'o-1' }); // the row of the stream's latest event, brought to the head
  await OrderSummaryProjection.rebuild({ orderId: 'o-1' }); // every row of the stream, re-derived from version 1
  // #endregion catch-up
}

export async function backfill(): Promise<void> {
  // #region backfill
  const progress = await OrderSummaryProjection.backfill({
    segments: 4, // parallel Scan segments per events table
    concurrency: 16, // stream instances applied at once
    throttle: { requestsPerSecond: 200 }, // leave capacity to production traffic
    signal: AbortSignal.timeout(3_600_000),
    onProgress: (p) => console.log(`${p.instancesDone}/${p.instancesEstimate ?? '?'}`, p.instancesPerSecond, p.etaMs),
  });
  console.log(progress.instancesDone, progress.eventsApplied, progress.rowsWritten);
  // #endregion backfill
}
