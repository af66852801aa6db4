import { OrderSummaryProjection } from './projection';

type OrderEvents = Parameters<
  typeof OrderSummaryProjection.applyBatch
>[0];
declare function notifyShipped(streamId: string): Promise<void>;

export async function apply(
  events: OrderEvents,
  orderEvent: OrderEvents[number],
): Promise<void> {
  // #region apply
  const { outcomes, ignored } =
    // Decoded events, any order, repeats allowed
    await OrderSummaryProjection.applyBatch(events);
  // One event; rejects with the row's error
  const outcome = await OrderSummaryProjection.apply(orderEvent);
  // #endregion apply
  console.log(ignored, outcome);

  // #region side-effects
  for (const outcome of outcomes) {
    for (const event of outcome.applied)
      if (event.type === 'OrderShipped')
        await notifyShipped(event.streamId);
  }
  // #endregion side-effects
}
