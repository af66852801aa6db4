import type { OrderEvents } from '../store/model';

export async function appendAnOrder(
  orders: typeof OrderEvents,
): Promise<void> {
  // #region append
  await orders.append({ orderId: 'o-1' }, [
    { type: 'OrderPlaced', data: { customer: 'ada' } },
  ]);
  // #endregion append
}
