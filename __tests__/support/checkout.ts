import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, type Decider, type EventOf, type NewEventOf } from 'dynafold';
import type { PoisonPolicy } from 'dynafold/types';
import { DynamoTimers, Workflow, command, complete, schedule, cancel, type Clock } from 'dynafold/reactions';

/**
 * The checkout of the workflows' tests: an order is placed; its payment is due 30 minutes later, or the
 * order is cancelled; once paid, the shipment is ordered. The deciders of the targets write whatever they
 * are told, so a command written twice shows as two events.
 */
export const checkoutOrderEvents = {
  OrderPlaced: z.object({ amount: z.number() }),
  OrderCancelled: z.object({ reason: z.string() }),
};
export const paymentEvents = { PaymentReceived: z.object({ orderId: z.string(), amount: z.number() }) };
export const shipmentEvents = { ShipmentRequested: z.object({ orderId: z.string() }) };

export type CheckoutOrderEvent = EventOf<typeof checkoutOrderEvents>;
export type PaymentEvent = EventOf<typeof paymentEvents>;

/** How long a placed order waits for its payment. */
export const PAYMENT_DUE_MS = 30 * 60_000;

export function checkoutStreams(client: DynamoDBClient, table: string, suffix = '') {
  return {
    orders: new EventStream({ client, table, name: `CheckoutOrder${suffix}`, streamId: ['orderId'], events: checkoutOrderEvents }),
    payments: new EventStream({ client, table, name: `Payment${suffix}`, streamId: ['paymentId'], events: paymentEvents }),
    shipments: new EventStream({ client, table, name: `Shipment${suffix}`, streamId: ['orderId'], events: shipmentEvents }),
  };
}

export type CheckoutStreams = ReturnType<typeof checkoutStreams>;

const cancelOrder: Decider<null, CheckoutOrderEvent, NewEventOf<typeof checkoutOrderEvents>> = {
  initial: null,
  evolve: (state) => state,
  decide: () => [{ type: 'OrderCancelled', data: { reason: 'payment not received in time' } }],
};

function requestShipment(orderId: string): Decider<null, EventOf<typeof shipmentEvents>, NewEventOf<typeof shipmentEvents>> {
  return { initial: null, evolve: (state) => state, decide: () => [{ type: 'ShipmentRequested', data: { orderId } }] };
}

export interface CheckoutState {
  readonly placed: boolean;
  readonly paid: number;
}

/** The checkout workflow over `streams`, its instances named after their orders. */
export function checkoutWorkflow(
  client: DynamoDBClient,
  tables: { readonly events: string; readonly reactions: string },
  streams: CheckoutStreams,
  clock: Clock,
  name = 'Checkout',
  timers: DynamoTimers = new DynamoTimers({ client, table: tables.reactions, clock }),
  faults: { readonly poison?: PoisonPolicy; readonly paymentFails?: (orderId: string) => boolean } = {},
) {
  const workflow = new Workflow({
    name,
    inputs: [streams.orders, streams.payments],
    client,
    table: tables.reactions,
    eventsTable: tables.events,
    timers,
    poison: faults.poison,
    correlate: (event) => (event.type === 'PaymentReceived' ? event.data.orderId : event.type === 'OrderPlaced' ? event.streamId : undefined),
    initial: (): CheckoutState => ({ placed: false, paid: 0 }),
    evolve: (state, message) => {
      if (message.type !== 'event') return state;
      if (message.event.type === 'OrderPlaced') return { ...state, placed: true };
      if (message.event.type === 'PaymentReceived') return { ...state, paid: state.paid + message.event.data.amount };
      return state;
    },
    decide: (input, state, { id }) => {
      if (input.type === 'timer') return state.paid > 0 ? [] : [command(streams.orders, { orderId: id }, cancelOrder), complete()];
      const { event } = input;
      if (event.type === 'OrderPlaced') return schedule('payment-due', Date.parse(event.timestamp) + PAYMENT_DUE_MS, { orderId: id });
      if (event.type === 'PaymentReceived' && faults.paymentFails?.(id) === true) throw new Error(`payment of ${id} cannot be handled`);
      if (event.type === 'PaymentReceived')
        return [cancel('payment-due'), command(streams.shipments, { orderId: id }, requestShipment(id)), complete()];
      return [];
    },
  });
  return { workflow, timers };
}
