// #region decider
import type { EventOf } from 'dynafold';
import { OrderEvents } from './model';

type OrderEvent = EventOf<typeof OrderEvents.events>;
export type Order = {
  status: 'new' | 'placed' | 'shipped';
  items: number;
};
export const initial: Order = { status: 'new', items: 0 };
export const evolve = (order: Order, event: OrderEvent): Order => {
  switch (event.type) {
    case 'OrderPlaced':
      return { ...order, status: 'placed' };
    case 'ItemAdded':
      return { ...order, items: order.items + 1 };
    case 'OrderShipped':
      return { ...order, status: 'shipped' };
  }
};
// #endregion decider

export async function addTea() {
  // #region execute
  const { state, version } = await OrderEvents.load('o-1', {
    initial,
    evolve,
  });

  const result = await OrderEvents.execute(
    'o-1',
    {
      initial,
      evolve,
      decide: (order) => {
        if (order.status !== 'placed')
          // Passed through, not retried
          throw new Error('the order is not open');
        return [
          { type: 'ItemAdded', data: { sku: 'tea', price: 4.5 } },
        ];
      },
    },
    { retry: { attempts: 20 } },
  );
  // result: { state, version, events }
  // #endregion execute
  return { state, version, result };
}

export async function snapshots(state: Order): Promise<void> {
  // #region snapshots
  await OrderEvents.load(
    'o-1',
    { initial, evolve },
    { snapshot: { every: 500 } },
  ); // saves one every 500 events folded
  await OrderEvents.saveSnapshot('o-1', { version: 42, state });
  // { version, state } | undefined
  await OrderEvents.loadSnapshot<Order>('o-1');
  // #endregion snapshots
}
