import { OrderSummaries } from './model';

export async function readSummaries() {
  // #region rows
  await OrderSummaries.put({
    orderId: 'o-1',
    customer: 'ada',
    status: 'placed',
    total: 0,
    version: 1,
  });
  // The row + createdAt, updatedAt
  await OrderSummaries.get({ orderId: 'o-1' }, { consistent: true });
  const page = await OrderSummaries.query(
    'byStatus',
    { status: 'placed' },
    { limit: 20 },
  );
  const next = await OrderSummaries.query(
    'byStatus',
    { status: 'placed' },
    { limit: 20, cursor: page.cursor },
  );
  // #endregion rows
  return next;
}
