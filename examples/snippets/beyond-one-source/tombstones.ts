// The tombstones section's account rows: closing an account removes its
// row, reopening starts it again.
import { z } from 'zod';
import {
  EventStream,
  Projection,
  ReadModel,
  removeRow,
} from 'dynafold';
import { client } from '../store/model';

const AccountEvents = new EventStream({
  client,
  table: 'events',
  name: 'Account',
  streamId: ['accountId'],
  events: {
    AccountOpened: z.object({ owner: z.string() }),
    Deposited: z.object({ amount: z.number() }),
    AccountClosed: z.object({}),
    AccountReopened: z.object({ owner: z.string() }),
  },
});

const Accounts = new ReadModel({
  client,
  table: 'views',
  name: 'Account',
  schema: z.object({
    accountId: z.string(),
    owner: z.string(),
    balance: z.number(),
    version: z.number(),
  }),
  key: {
    pk: { field: 'pk', composite: ['accountId'] },
    sk: { field: 'sk', composite: [] },
  },
});

export const AccountProjection = new Projection({
  stream: AccountEvents,
  readModel: Accounts,
  key: (streamId) => ({ accountId: streamId.accountId }),
  initial: (streamId) => ({
    accountId: streamId.accountId,
    owner: '',
    balance: 0,
    version: 0,
  }),
  checkpoint: 'version',
  // #region tombstones
  evolve: (state, event) => {
    switch (event.type) {
      case 'AccountOpened':
      case 'AccountReopened':
        return { ...state, owner: event.data.owner, balance: 0 };
      case 'Deposited':
        return { ...state, balance: state.balance + event.data.amount };
      case 'AccountClosed':
        // The row becomes a tombstone: its checkpoint stays
        return removeRow;
    }
  },
  recreate: (event) => event.type === 'AccountReopened',
  // Optional; enable TTL on `ttl` for the table
  tombstoneTtl: { durationMs: 3 * 24 * 3_600_000 },
  // #endregion tombstones
});
