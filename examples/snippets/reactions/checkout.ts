// The reactions guide's running example, and examples/checkout.ts's: an
// order is placed, paid within 30 minutes and shipped, or cancelled.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import {
  EventStream,
  type Decider,
  type EventOf,
  type NewEventOf,
} from 'dynafold';
import {
  DynamoTimers,
  Workflow,
  cancel,
  command,
  complete,
  schedule,
  type Clock,
} from 'dynafold/reactions';

/** Where the checkout's streams, progress rows and timers live. */
export interface CheckoutTables {
  readonly events: string;
  readonly reactions: string;
}

// #region streams
const orderEvents = {
  OrderPlaced: z.object({ customer: z.string(), amount: z.number() }),
  OrderCancelled: z.object({ reason: z.string() }),
};
const paymentEvents = {
  PaymentReceived: z.object({
    orderId: z.string(),
    amount: z.number(),
  }),
};
const shipmentEvents = {
  ShipmentRequested: z.object({ customer: z.string() }),
};

export function checkoutStreams(client: DynamoDBClient, table: string) {
  return {
    Orders: new EventStream({
      client,
      table,
      name: 'Order',
      streamId: ['orderId'],
      events: orderEvents,
    }),
    Payments: new EventStream({
      client,
      table,
      name: 'Payment',
      streamId: ['paymentId'],
      events: paymentEvents,
    }),
    Shipments: new EventStream({
      client,
      table,
      name: 'Shipment',
      streamId: ['orderId'],
      events: shipmentEvents,
    }),
  };
}
// #endregion streams

export type CheckoutStreams = ReturnType<typeof checkoutStreams>;
type OrderEvent = EventOf<typeof orderEvents>;
type ShipmentEvent = EventOf<typeof shipmentEvents>;

// #region deciders
/** Cancels the order, unless it is cancelled already. */
export const cancelUnpaid: Decider<
  { readonly open: boolean },
  OrderEvent,
  NewEventOf<typeof orderEvents>
> = {
  initial: { open: false },
  evolve: (_state, event) => ({ open: event.type === 'OrderPlaced' }),
  decide: (state) =>
    state.open
      ? [
          {
            type: 'OrderCancelled',
            data: { reason: 'payment not received in 30 minutes' },
          },
        ]
      : [],
};

/** Requests the order's shipment, unless it is requested already. */
export function requestShipment(
  customer: string,
): Decider<
  { readonly requested: boolean },
  ShipmentEvent,
  NewEventOf<typeof shipmentEvents>
> {
  return {
    initial: { requested: false },
    evolve: () => ({ requested: true }),
    decide: (state) =>
      state.requested
        ? []
        : [{ type: 'ShipmentRequested', data: { customer } }],
  };
}
// #endregion deciders

// #region workflow
export const PAYMENT_WINDOW_MS = 30 * 60_000;

interface Checkout {
  readonly customer: string;
  readonly amount: number; // 0 until the order is placed
  readonly paid: number;
}

export function checkoutWorkflow(
  client: DynamoDBClient,
  tables: CheckoutTables,
  { Orders, Payments, Shipments }: CheckoutStreams,
  // The system's clock, unless a test moves one
  options: { clock?: Clock; timers?: DynamoTimers } = {},
) {
  const timers =
    options.timers ??
    new DynamoTimers({
      client,
      table: tables.reactions,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  const workflow = new Workflow({
    name: 'Checkout',
    inputs: [Orders, Payments],
    client,
    table: tables.reactions,
    eventsTable: tables.events,
    timers,
    // One instance per order: its id is the order's
    correlate: (event) =>
      event.type === 'PaymentReceived'
        ? event.data.orderId
        : event.type === 'OrderPlaced'
          ? event.streamId
          : undefined,
    initial: (): Checkout => ({ customer: '', amount: 0, paid: 0 }),
    // Folds the inputs (and outputs) the instance's stream recorded
    evolve: (state, message) => {
      if (message.type !== 'event') return state;
      const { event } = message;
      if (event.type === 'OrderPlaced')
        return { ...state, ...event.data };
      if (event.type === 'PaymentReceived')
        return { ...state, paid: state.paid + event.data.amount };
      return state;
    },
    // The outputs of an input, on the state before it
    decide: (input, state, { id }) => {
      const ship = (customer: string) => [
        cancel('payment-due'),
        command(Shipments, { orderId: id }, requestShipment(customer)),
        complete(),
      ];
      if (input.type === 'timer')
        return [
          command(Orders, { orderId: id }, cancelUnpaid),
          complete(),
        ];
      const { event } = input;
      if (event.type === 'OrderPlaced') {
        // A payment may come first: two streams, any order
        if (state.paid >= event.data.amount)
          return ship(event.data.customer);
        const due = Date.parse(event.timestamp) + PAYMENT_WINDOW_MS;
        return schedule('payment-due', due);
      }
      if (event.type === 'PaymentReceived') {
        const placed = state.amount > 0;
        if (placed && state.paid + event.data.amount >= state.amount)
          return ship(state.customer);
      }
      return [];
    },
  });
  return { workflow, timers };
}
// #endregion workflow
