/**
 * The chaos world's rows beyond one source: customer rows fed by many Purchase stream instances and by
 * Loyalty programmes (a MultiSourceProjection with a commutative fold), and account rows that are removed
 * on closing and may come back on reopening (tombstones, with a revision). Each comes with the fold from
 * the store that its rows are checked against.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, MultiSourceProjection, Projection, ReadModel, removeRow, type NewEventOf, type StreamEvent } from 'dynafold';
import type { OutboxOptions } from 'dynafold/outbox';
import { chokes, type PoisonWorld } from './poison';
import { randomInt } from './random';

export const purchaseEventSchemas = {
  Purchased: z.object({ customer: z.string(), amount: z.number() }),
  Refunded: z.object({ customer: z.string(), amount: z.number() }),
};
export const loyaltyEventSchemas = { PointsAwarded: z.object({ customer: z.string(), points: z.number() }) };
export const accountEventSchemas = {
  Opened: z.object({ owner: z.string() }),
  Deposited: z.object({ amount: z.number() }),
  Closed: z.object({}),
  Reopened: z.object({ owner: z.string() }),
};

export function purchaseStream(client: DynamoDBClient, table: string) {
  return new EventStream({ client, table, name: 'Purchase', streamId: ['purchaseId'], events: purchaseEventSchemas });
}
export function loyaltyStream(client: DynamoDBClient, table: string) {
  return new EventStream({ client, table, name: 'Loyalty', streamId: ['programId'], events: loyaltyEventSchemas });
}
export function accountStream(client: DynamoDBClient, table: string) {
  return new EventStream({ client, table, name: 'Account', streamId: ['accountId'], events: accountEventSchemas });
}

export type PurchaseStream = ReturnType<typeof purchaseStream>;
export type LoyaltyStream = ReturnType<typeof loyaltyStream>;
export type AccountStream = ReturnType<typeof accountStream>;

/** The customers every purchase and loyalty event names. */
/** Customers named like the stream instances feeding them (see `SMALL_IDS`), so keys and ids collide. */
export const CUSTOMERS = ['a', 'b', 'aa', 'ab', 'ba', 'bb'] as const;

const customerSchema = z.object({ customer: z.string(), purchases: z.number(), spent: z.number(), points: z.number() });
export type Customer = z.output<typeof customerSchema>;
const accountSchema = z.object({ accountId: z.string(), owner: z.string(), balance: z.number(), version: z.number() });
export type Account = z.output<typeof accountSchema>;

export function customerTotals(client: DynamoDBClient, table: string, name = 'Customer') {
  return new ReadModel({
    client,
    table,
    name,
    schema: customerSchema,
    key: { pk: { field: 'pk', composite: ['customer'] }, sk: { field: 'sk', composite: [] } },
  });
}
export function accountBalances(client: DynamoDBClient, table: string, name = 'Account') {
  return new ReadModel({
    client,
    table,
    name,
    schema: accountSchema,
    key: { pk: { field: 'pk', composite: ['accountId'] }, sk: { field: 'sk', composite: [] } },
  });
}

function evolveCustomer(state: Customer, event: StreamEvent): Customer {
  const data = event.data as { amount?: number; points?: number };
  switch (event.type) {
    case 'Purchased':
      return { ...state, purchases: state.purchases + 1, spent: state.spent + (data.amount ?? 0) };
    case 'Refunded':
      return { ...state, spent: state.spent - (data.amount ?? 0) };
    case 'PointsAwarded':
      return { ...state, points: state.points + (data.points ?? 0) };
    default:
      return state;
  }
}

/** The message an outbox carries for an applied event: enough to check order and identity. */
export function outboxMessage(event: StreamEvent): { type: string; stream: string; streamId: string; version: number } {
  return { type: event.type, stream: event.streamName, streamId: event.streamId, version: event.version };
}

/** Customer rows fed by every purchase instance and every loyalty programme naming the customer. */
export function customerProjection(
  purchases: PurchaseStream,
  loyalty: LoyaltyStream,
  readModel: ReturnType<typeof customerTotals>,
  outboxTable?: string,
  poison?: PoisonWorld,
) {
  const outbox: OutboxOptions<Customer, StreamEvent> | undefined =
    outboxTable === undefined ? undefined : { table: outboxTable, message: outboxMessage };
  return new MultiSourceProjection({
    readModel,
    sources: {
      purchases: { stream: purchases, key: (_id, event) => ({ customer: event.data.customer }) },
      loyalty: { stream: loyalty, key: (_id, event) => ({ customer: event.data.customer }) },
    },
    initial: (key) => ({ customer: String(key['customer']), purchases: 0, spent: 0, points: 0 }),
    evolve: (state: Customer, event) => {
      const customer = (event.data as { customer?: string }).customer ?? '';
      if (chokes(poison, 'customers', customer, event)) throw new Poisoned(customer);
      return evolveCustomer(state, event);
    },
    ...(outbox === undefined ? {} : { outbox }),
    ...(poison === undefined ? {} : { poison: POISON_POLICY }),
  });
}

/** The poison schedules' projections park a row after two failed attempts. */
export const POISON_POLICY = { park: { afterAttempts: 2 } } as const;

/** What a poisoned `evolve` throws: no `terminal` accepts it. */
export class Poisoned extends Error {
  override readonly name = 'Poisoned';
}

function initialAccount(accountId: string): Account {
  return { accountId, owner: '', balance: 0, version: 0 };
}

function evolveAccount(state: Account, event: StreamEvent): Account | typeof removeRow {
  const data = event.data as { owner?: string; amount?: number };
  switch (event.type) {
    case 'Opened':
    case 'Reopened':
      return { ...state, owner: data.owner ?? '', balance: 0 };
    case 'Deposited':
      return { ...state, balance: state.balance + (data.amount ?? 0) };
    case 'Closed':
      return removeRow;
    default:
      return state;
  }
}

/** Account rows: removed (a tombstone) on closing, recreated on reopening, with a revision on every write. */
export function accountProjection(accounts: AccountStream, readModel: ReturnType<typeof accountBalances>) {
  return new Projection({
    stream: accounts,
    readModel,
    key: (id) => ({ accountId: id.accountId }),
    initial: (id) => initialAccount(id.accountId),
    evolve: (state, event) => evolveAccount(state, event),
    checkpoint: 'version',
    revision: true,
    recreate: (event) => event.type === 'Reopened',
  });
}

/** Appends one random chunk (1–3 purchases, some refunded) to a purchase instance. */
export async function appendPurchaseChunk(
  purchases: PurchaseStream,
  purchaseId: string,
  version: number,
  random: () => number,
  idempotencyKey?: string,
): Promise<number> {
  const events: NewEventOf<typeof purchaseEventSchemas>[] = [];
  for (let i = randomInt(random, 1, 3); i > 0; i--) {
    const customer = CUSTOMERS[randomInt(random, 0, CUSTOMERS.length - 1)] as string;
    events.push({ type: 'Purchased', data: { customer, amount: randomInt(random, 5, 90) } });
    if (random() < 0.25) events.push({ type: 'Refunded', data: { customer, amount: randomInt(random, 1, 5) } });
  }
  const result = await purchases.append({ purchaseId }, events, {
    expectedVersion: version,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  });
  return result.version;
}

/** Appends points for 1–4 random customers to a loyalty programme. */
export async function appendLoyaltyChunk(
  loyalty: LoyaltyStream,
  programId: string,
  version: number,
  random: () => number,
  idempotencyKey?: string,
): Promise<number> {
  const events = Array.from({ length: randomInt(random, 1, 4) }, () => ({
    type: 'PointsAwarded' as const,
    data: { customer: CUSTOMERS[randomInt(random, 0, CUSTOMERS.length - 1)] as string, points: randomInt(random, 1, 20) },
  }));
  const result = await loyalty.append({ programId }, events, {
    expectedVersion: version,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  });
  return result.version;
}

/** Appends one random chunk to an account: opened first, then deposits, closings (some twice) and reopenings. */
export async function appendAccountChunk(
  accounts: AccountStream,
  accountId: string,
  version: number,
  random: () => number,
  idempotencyKey?: string,
): Promise<number> {
  const events: NewEventOf<typeof accountEventSchemas>[] = [];
  if (version === 0) events.push({ type: 'Opened', data: { owner: `owner-${accountId}` } });
  for (let i = randomInt(random, version === 0 ? 0 : 1, 3); i > 0; i--) {
    const roll = random();
    if (roll < 0.12) events.push({ type: 'Closed', data: {} });
    else if (roll < 0.24) events.push({ type: 'Reopened', data: { owner: `owner-${accountId}-${version + events.length}` } });
    else events.push({ type: 'Deposited', data: { amount: randomInt(random, 1, 100) } });
  }
  if (events.length === 0) events.push({ type: 'Deposited', data: { amount: 1 } });
  const result = await accounts.append({ accountId }, events, {
    expectedVersion: version,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  });
  return result.version;
}

/** A customer row as a full fold over every source gives it: order across sources does not matter. */
export function foldCustomer(customer: string, events: ReadonlyArray<StreamEvent>): Customer | undefined {
  let row: Customer | undefined;
  for (const event of events) {
    if ((event.data as { customer?: string }).customer !== customer) continue;
    row = evolveCustomer(row ?? { customer, purchases: 0, spent: 0, points: 0 }, event);
  }
  return row;
}

/** An account as a full fold gives it: the live row or the tombstone, and which events are applied or skipped. */
export interface AccountFold {
  /** The live row, `undefined` when never opened or removed. */
  readonly row: Account | undefined;
  /** The tombstone's fields (what `get` with `includeRemoved` shows), when the account ends removed. */
  readonly tombstone: (Account & { removed: true }) | undefined;
  readonly applied: ReadonlySet<number>;
  readonly skipped: ReadonlySet<number>;
}

export function foldAccount(accountId: string, events: ReadonlyArray<StreamEvent>): AccountFold {
  let state: Account | undefined;
  let removed = false;
  let lastState: Account | undefined;
  let version = 0;
  const applied = new Set<number>();
  const skipped = new Set<number>();
  for (const event of events) {
    if (removed && state === undefined && event.type !== 'Reopened') {
      skipped.add(event.version);
      continue;
    }
    const base = state ?? initialAccount(accountId);
    const next = evolveAccount(base, event);
    if (next === removeRow) {
      lastState = base;
      state = undefined;
      removed = true;
    } else {
      state = next;
      removed = false;
    }
    version = event.version;
    applied.add(event.version);
  }
  return {
    row: state === undefined ? undefined : { ...state, version },
    tombstone: removed && lastState !== undefined ? { ...lastState, version, removed: true } : undefined,
    applied,
    skipped,
  };
}
