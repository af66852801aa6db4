// The checkout's specs: `test('...', () => unpaidOrderIsCancelled())`.
// #region spec
import {
  reactionSpec,
  type ReactionSpecTables,
} from 'dynafold/testing';
import {
  PAYMENT_WINDOW_MS,
  checkoutStreams,
  checkoutWorkflow,
} from './checkout';

/** The workflow on the spec's fresh tables, with its clock. */
function checkout(tables: ReactionSpecTables) {
  const streams = checkoutStreams(tables.client, tables.events);
  const { workflow } = checkoutWorkflow(
    tables.client,
    tables,
    streams,
    { clock: tables.clock },
  );
  return {
    reaction: workflow,
    targets: [streams.Orders, streams.Shipments],
  };
}

const order = { orderId: 'o-1' };
const placed = {
  type: 'OrderPlaced',
  data: { customer: 'ada', amount: 30 },
};

/** Unpaid: cancelled once, 30 minutes on, and not a minute before. */
export const unpaidOrderIsCancelled = () =>
  reactionSpec(checkout)
    .given([{ stream: 'Order', streamId: order, events: [placed] }])
    .after(PAYMENT_WINDOW_MS - 60_000) // nothing yet
    .after(2 * 60_000) // the sweeps fire the timer
    .thenEvents([
      {
        stream: 'Order',
        streamId: order,
        events: [
          placed,
          {
            type: 'OrderCancelled',
            data: { reason: 'payment not received in 30 minutes' },
          },
        ],
      },
      { stream: 'Shipment', streamId: order, events: [] },
    ]);

/** Paid in time: shipped once; the timer, cancelled, never fires. */
export const paidOrderShips = () =>
  reactionSpec(checkout)
    .given([
      { stream: 'Order', streamId: order, events: [placed] },
      {
        stream: 'Payment',
        streamId: { paymentId: 'p-1' },
        events: [
          {
            type: 'PaymentReceived',
            data: { orderId: 'o-1', amount: 30 },
          },
        ],
      },
    ])
    .after(PAYMENT_WINDOW_MS + 60_000)
    .thenEvents([
      { stream: 'Order', streamId: order, events: [placed] },
      {
        stream: 'Shipment',
        streamId: order,
        events: [
          { type: 'ShipmentRequested', data: { customer: 'ada' } },
        ],
      },
    ]);
// #endregion spec
