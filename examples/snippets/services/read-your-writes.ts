import { OrderEvents, OrderSummaryProjection } from './model';

export async function addItemAndRead(orderId: string, data: { sku: string; price: number }) {
  // #region read-your-writes
  const { version } = await OrderEvents.append({ orderId }, [{ type: 'ItemAdded', data }]);
  const { row, fresh } = await OrderSummaryProjection.waitFor({ orderId }, { version, timeoutMs: 2000 });

  // or in one call, for every row the appended events address, in each named projection
  const result = await OrderEvents.append({ orderId }, [{ type: 'ItemAdded', data }], { waitFor: [OrderSummaryProjection] });
  const projected = result.projected?.[OrderSummaryProjection.name]; // [{ key, row, fresh: true, version }]
  // #endregion read-your-writes
  return { row, fresh, projected };
}
