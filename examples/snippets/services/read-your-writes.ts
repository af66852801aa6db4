import { OrderEvents, OrderSummaryProjection } from './model';

export async function addItemAndRead(
  orderId: string,
  data: { sku: string; price: number },
) {
  // #region read-your-writes
  const { version } = await OrderEvents.append({ orderId }, [
    { type: 'ItemAdded', data },
  ]);
  const { row, fresh } = await OrderSummaryProjection.waitFor(
    { orderId },
    { version, timeoutMs: 2000 },
  );

  // Or in one call: every row the appended events address, in each
  // named projection.
  const result = await OrderEvents.append(
    { orderId },
    [{ type: 'ItemAdded', data }],
    { waitFor: [OrderSummaryProjection] },
  );
  // [{ key, row, fresh: true, version }]
  const projected = result.projected?.[OrderSummaryProjection.name];
  // #endregion read-your-writes
  return { row, fresh, projected };
}
