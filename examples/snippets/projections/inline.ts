import type { Decider, EventOf, NewEventOf } from 'dynafold';
import { OrderEvents } from '../store/model';
import { OrderSummaryProjection } from './projection';

type Events = typeof OrderEvents.events;

export async function appendInline(
  orderId: string,
  events: ReadonlyArray<NewEventOf<Events>>,
  expectedVersion: number,
  decider: Decider<
    { items: number },
    EventOf<Events>,
    NewEventOf<Events>
  >,
) {
  // #region inline
  const { version, inline } = await OrderEvents.append(
    { orderId },
    events,
    { expectedVersion, inline: [OrderSummaryProjection] },
  );
  // [{ projection: 'order-summaries', events: [...] }]: the row
  // holds the events now
  console.log(inline?.applied);
  // [{ projection, reason: 'behind' | 'parked' | 'failed' | 'limits' |
  // 'conflict' | 'duplicate' }]
  console.log(inline?.deferred);
  await OrderEvents.execute({ orderId }, decider, {
    inline: [OrderSummaryProjection],
  }); // the same for a command
  // #endregion inline
  return version;
}
