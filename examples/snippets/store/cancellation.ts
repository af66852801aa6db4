import Fastify from 'fastify';
import { evolve, initial, type Order } from './commands';
import { OrderEvents } from './model';

const app = Fastify();
const ship = {
  initial,
  evolve,
  decide: (order: Order) =>
    order.status === 'placed'
      ? [{ type: 'OrderShipped' as const, data: {} }]
      : [],
};

// #region signal
app.post<{ Params: { id: string } }>(
  '/orders/:id/ship',
  async (request) => {
    const signal = AbortSignal.any([
      request.signal,
      AbortSignal.timeout(2_000),
    ]);
    return OrderEvents.execute(request.params.id, ship, { signal });
  },
);
// #endregion signal
