/**
 * The quickstart's checks of a read model against the store: every row equals the fold of its stream,
 * and every event was applied exactly once (each in exactly one call's `applied`).
 */
import {
  foldSummary,
  type OrderEvent,
  type OrderStream,
  type OrderSummaries,
  type OrderSummary,
} from './orders';

const FIELDS = [
  'orderId',
  'customer',
  'status',
  'items',
  'total',
  'version',
] as const;

function describe(row: Partial<OrderSummary> | undefined): string {
  return row === undefined
    ? 'no row'
    : FIELDS.map((field) => `${field}=${String(row[field])}`).join(' ');
}

/** Each order's events as the store has them (strongly consistent reads). */
export async function readHistories(
  Orders: OrderStream,
  orderIds: ReadonlyArray<string>,
): Promise<Map<string, OrderEvent[]>> {
  const histories = new Map<string, OrderEvent[]>();
  for (const orderId of orderIds)
    histories.set(orderId, await Orders.read({ orderId }));
  return histories;
}

/** Problems found in `model`, each a line; prints a summary line. */
export async function checkReadModel(
  model: OrderSummaries,
  histories: ReadonlyMap<string, ReadonlyArray<OrderEvent>>,
  applied: ReadonlyArray<OrderEvent>,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [orderId, events] of histories) {
    const expected = foldSummary(orderId, events);
    const row = await model.get({ orderId }, { consistent: true });
    if (
      row === undefined ||
      FIELDS.some((field) => row[field] !== expected[field])
    ) {
      problems.push(
        `${model.name} ${orderId}: the row is ${describe(row)}, the fold of its stream is ${describe(expected)}`,
      );
    }
  }
  const rowsOk = problems.length === 0;

  const stored = new Set(
    [...histories.values()]
      .flat()
      .map((event) => `${event.streamId}@${event.version}`),
  );
  const seen = new Map<string, number>();
  for (const event of applied) {
    const id = `${event.streamId}@${event.version}`;
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  const twice = [...seen]
    .filter(([, count]) => count > 1)
    .map(([id]) => id);
  const missing = [...stored].filter((id) => !seen.has(id));
  const unknown = [...seen.keys()].filter((id) => !stored.has(id));
  if (twice.length > 0)
    problems.push(
      `${model.name}: applied more than once: ${twice.join(', ')}`,
    );
  if (missing.length > 0)
    problems.push(
      `${model.name}: never applied: ${missing.join(', ')}`,
    );
  if (unknown.length > 0)
    problems.push(
      `${model.name}: applied but not in the store: ${unknown.join(', ')}`,
    );

  console.log(
    `  ${model.name.padEnd(22)} ${histories.size} rows equal the fold of their stream: ${rowsOk ? 'yes' : 'NO'};  ` +
      `${stored.size} events applied exactly once: ${twice.length + missing.length + unknown.length === 0 ? 'yes' : 'NO'} ` +
      `(${applied.length} in applied lists, ${twice.length} twice, ${missing.length} never)`,
  );
  return problems;
}
