import { Projection } from 'dynafold';
import { OrderEvents, OrderSummaries } from '../store/model';

export async function parking(): Promise<void> {
  // #region park
  const summaries = new Projection({
    stream: OrderEvents,
    readModel: OrderSummaries,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => ({
      orderId: streamId.orderId,
      customer: '',
      status: 'new',
      total: 0,
      version: 0,
    }),
    evolve: (state, event) =>
      event.type === 'ItemAdded'
        ? { ...state, total: state.total + event.data.price }
        : state,
    checkpoint: 'version',
    poison: { park: { afterAttempts: 3 } },
  });

  for await (const parked of summaries.parkedRows())
    console.log(
      parked.key,
      parked.event,
      parked.error,
      parked.attempts,
    );
  // After the fix is deployed; no key: every parked row
  await summaries.retryParked({ orderId: 'o-1' });
  // Or move past the failing event on purpose
  await summaries.skipParked({ orderId: 'o-1' });
  // #endregion park
}
