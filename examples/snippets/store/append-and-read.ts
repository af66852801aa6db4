import { OrderEvents } from './model';

export async function appendAnOrder() {
  // #region append
  const { version, events } = await OrderEvents.append(
    { orderId: 'o-1' },
    [{ type: 'OrderPlaced', data: { customer: 'ada' } }],
    { expectedVersion: 0 },
  );
  // #endregion append
  return { version, events };
}

export async function readAnOrder(signal: AbortSignal): Promise<void> {
  // #region read
  await OrderEvents.version('o-1'); // 0 for a stream without events
  await OrderEvents.read('o-1'); // every event, strongly consistent
  await OrderEvents.read('o-1', { fromVersion: 2, toVersion: 5 });
  await OrderEvents.readFrom('o-1', 3); // the events after version 3
  for await (const event of OrderEvents.iterate('o-1', { signal })) {
    // paged (1,000 events a Query), so a stream of any length is read
    // in bounded memory
    console.log(event.type);
  }
  // #endregion read
}
