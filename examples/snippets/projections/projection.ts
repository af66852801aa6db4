import { OrderEvents, OrderSummaries } from '../store/model';

// #region projection
import { Projection } from 'dynafold';

export const OrderSummaryProjection = new Projection({
  // Its one name: outcomes, logs, spans, metrics and the CLI's.
  name: 'order-summaries',
  stream: OrderEvents,
  readModel: OrderSummaries,
  key: (streamId) => ({ orderId: streamId.orderId }),
  initial: (streamId) => ({
    orderId: streamId.orderId,
    customer: '',
    status: 'new',
    total: 0,
    version: 0,
  }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'OrderPlaced':
        return {
          ...state,
          customer: event.data.customer,
          status: 'placed',
        };
      case 'ItemAdded':
        return { ...state, total: state.total + event.data.price };
      case 'OrderShipped':
        return { ...state, status: 'shipped' };
    }
  },
  checkpoint: 'version',
});
// #endregion projection
