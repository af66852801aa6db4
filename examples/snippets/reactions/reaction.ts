// The reactions guide's reaction: an order placed reserves its stock.
import { z } from 'zod';
import { EventStream, type Decider, type NewEventOf } from 'dynafold';
import { client } from '../store/model';

const stockEvents = {
  Reserved: z.object({ orderId: z.string(), quantity: z.number() }),
};
const Stock = new EventStream({
  client,
  table: 'events',
  name: 'Stock',
  streamId: ['sku'],
  events: stockEvents,
});
const Orders = new EventStream({
  client,
  table: 'events',
  name: 'Order',
  streamId: ['orderId'],
  events: {
    OrderPlaced: z.object({ sku: z.string(), quantity: z.number() }),
  },
});

/** Reserves stock for an order: the reaction writes it once. */
function reserve(
  orderId: string,
  quantity: number,
): Decider<null, unknown, NewEventOf<typeof stockEvents>> {
  return {
    initial: null,
    evolve: (state) => state,
    decide: () => [{ type: 'Reserved', data: { orderId, quantity } }],
  };
}

// #region reaction
import { Reaction, command, message } from 'dynafold/reactions';
import { lambdaHandler } from 'dynafold/lambda';

export const reserveStock = new Reaction({
  name: 'reserve-stock', // its progress rows are kept under it
  streams: [Orders],
  client,
  table: 'reactions', // reactionsTableDefinition('reactions')
  filter: (event) => event.type === 'OrderPlaced',
  // From the event alone: no reads, no writes of its own
  react: (event) => [
    command(
      Stock,
      { sku: event.data.sku },
      reserve(event.streamId, event.data.quantity),
    ),
    // For the warehouse's API: published by an OutboxRelay
    message('outbox', { type: 'reserve', orderId: event.streamId }),
  ],
  poison: { park: { afterAttempts: 3 } },
});

// A reaction goes where a projection does
export const handler = lambdaHandler({ projections: [reserveStock] });
// #endregion reaction
