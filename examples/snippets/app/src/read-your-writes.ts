// Read-your-writes: an item added, and the order's summary row as the
// projector writes it a moment later.
import {
  type orderStream,
  type orderSummaryProjection,
} from './orders.js';

export async function addItemAndRead(
  orders: ReturnType<typeof orderStream>,
  summaries: ReturnType<typeof orderSummaryProjection>,
  orderId: string,
  item: { sku: string; price: number },
  expectedVersion?: number,
) {
  // Waits for every row the appended events address, in each named
  // projection, to reflect them (or ReadYourWritesTimeoutError, 504).
  const result = await orders.append(
    { orderId },
    [{ type: 'ItemAdded', data: item }],
    {
      ...(expectedVersion === undefined ? {} : { expectedVersion }),
      waitFor: { projections: [summaries], timeoutMs: 5000 },
    },
  );
  // [{ key, row, fresh: true, version }], under the projection's name.
  const [projected] = result.projected?.[summaries.name] ?? [];
  return { version: result.version, row: projected?.row };
}
