import { OrderSummaryProjection } from './projection';

export async function catchUpAndRebuild(): Promise<void> {
  // #region catch-up
  // The row of the stream's latest event, brought to the head
  await OrderSummaryProjection.catchUp({ orderId: 'o-1' });
  // Every row of the stream, re-derived from version 1
  await OrderSummaryProjection.rebuild({ orderId: 'o-1' });
  // #endregion catch-up
}

export async function backfill(): Promise<void> {
  // #region backfill
  const progress = await OrderSummaryProjection.backfill({
    segments: 4, // parallel Scan segments per events table
    concurrency: 16, // stream instances applied at once
    // Leave capacity to production traffic
    throttle: { requestsPerSecond: 200 },
    signal: AbortSignal.timeout(3_600_000),
    onProgress: (p) =>
      console.log(
        `${p.instancesDone}/${p.instancesEstimate ?? '?'}`,
        p.instancesPerSecond,
        p.etaMs,
      ),
  });
  console.log(
    progress.instancesDone,
    progress.eventsApplied,
    progress.rowsWritten,
  );
  // #endregion backfill
}
