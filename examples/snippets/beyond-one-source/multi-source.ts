import type { LambdaStreamEvent } from 'dynafold/lambda';
import { EventStream, ReadModel } from 'dynafold';
import { z } from 'zod';
import { client, OrderEvents } from '../store/model';

const LoyaltyEvents = new EventStream({
  client,
  table: 'events',
  name: 'Loyalty',
  streamId: ['cardId'],
  events: {
    PointsEarned: z.object({
      customer: z.string(),
      points: z.number(),
    }),
  },
});
const CustomerTotals = new ReadModel({
  client,
  table: 'views',
  name: 'CustomerTotals',
  schema: z.object({
    customer: z.string(),
    spent: z.number(),
    points: z.number(),
  }),
  key: {
    pk: { field: 'pk', composite: ['customer'] },
    sk: { field: 'sk', composite: [] },
  },
});

export async function handle(event: LambdaStreamEvent) {
  const records = event.Records;
  // #region multi-source
  const customers = new MultiSourceProjection({
    name: 'customer-totals',
    readModel: CustomerTotals,
    sources: {
      orders: {
        stream: OrderEvents,
        key: (_id, event) =>
          event.type === 'OrderPlaced'
            ? { customer: event.data.customer }
            : undefined,
      },
      loyalty: {
        stream: LoyaltyEvents,
        key: (_id, event) => ({ customer: event.data.customer }),
      },
    },
    initial: (key) => ({
      customer: String(key.customer),
      spent: 0,
      points: 0,
    }),
    evolve: (state, event) =>
      event.type === 'PointsEarned'
        ? { ...state, points: state.points + event.data.points }
        : state,
  });
  await processBatch(records, {
    projections: [customers],
    source: 'lambda',
  });
  // #endregion multi-source
}

import { MultiSourceProjection } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
