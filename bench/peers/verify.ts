import type { Summary } from '../support/orders';

const FIELDS = ['customer', 'status', 'items', 'total', 'version'] as const;

/** How many rows differ from their expected fold in any summary field (a missing row differs). */
export async function countWrong(expected: ReadonlyArray<Summary>, get: (orderId: string) => Promise<Summary | undefined>): Promise<number> {
  let wrong = 0;
  for (const want of expected) {
    const row = await get(want.orderId);
    if (row === undefined || FIELDS.some((field) => row[field] !== want[field])) wrong++;
  }
  return wrong;
}
