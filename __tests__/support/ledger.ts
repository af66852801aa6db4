import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { z } from 'zod';
import { EventStream, MultiSourceProjection, Projection, ReadModel, removeRow, skipEvent, type Logger, type StreamEvent } from 'dynafold';
import type { PoisonPolicy } from 'dynafold/types';

/**
 * A small world for property tests: two streams whose instance ids come from a two-letter alphabet, and
 * owners, zones and ids drawn from the same letters, so that ids collide across streams, across sources
 * of one row, and between row keys and stream ids. Wide random ids never collide and find no identity bug.
 */
export const STREAMS = ['A', 'B'] as const;
export const LETTERS = ['a', 'b', 'ab'] as const;
export type StreamName = (typeof STREAMS)[number];

const owner = z.string();
export const ledgerEvents = {
  Opened: z.object({ owner }),
  /** `memo`: a large, barely compressible note that the accounts' outbox message carries. */
  Deposited: z.object({ owner, amount: z.number().int(), zone: z.string().optional(), memo: z.string().optional() }),
  /** `evolve` answers `skipEvent`. */
  Skipped: z.object({ owner }),
  /** `evolve` throws an error `terminal` accepts. */
  Rejected: z.object({ owner }),
  /** `evolve` answers `removeRow` (single-source accounts). */
  Closed: z.object({ owner }),
  /** Recreates a removed account. */
  Reopened: z.object({ owner }),
};
export type LedgerType = keyof typeof ledgerEvents;
export type NewLedgerEvent = { readonly type: LedgerType; readonly data: { owner: string; amount?: number; zone?: string; memo?: string } };

/** An event of a generated workload: a large memo is named by its seed, so a counterexample prints short. */
export type GeneratedEvent = { readonly type: LedgerType; readonly data: { owner: string; amount?: number; zone?: string; memoSeed?: number } };

/** The event to append for a generated one: its memo written out. */
export function toNewEvent(event: GeneratedEvent): NewLedgerEvent {
  const { memoSeed, ...data } = event.data;
  return { type: event.type, data: memoSeed === undefined ? data : { ...data, memo: noise(memoSeed, 80_000) } };
}
export type LedgerEvent = StreamEvent<LedgerType, { owner: string; amount?: number; zone?: string; memo?: string }>;

export function ledgerStream(client: DynamoDBClient, table: string, name: StreamName, options: { itemPerEvent?: boolean } = {}) {
  return new EventStream({ client, table, name, streamId: ['id'], events: ledgerEvents, ...options });
}
export type LedgerStream = ReturnType<typeof ledgerStream>;

/** An append of the generated workload. */
export interface LedgerAppend {
  readonly stream: StreamName;
  readonly id: string;
  readonly events: ReadonlyArray<GeneratedEvent>;
  /** Written an item per event (as 0.3 did, `itemPerEvent`), so one stream mixes them with commits of several. */
  readonly itemPerEvent?: boolean;
}

const letter = fc.constantFrom(...LETTERS);
const newEvent: fc.Arbitrary<GeneratedEvent> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({ owner: letter, amount: fc.integer({ min: 1, max: 9 }), zone: fc.option(letter, { nil: undefined }) })
      .map((data) => ({ type: 'Deposited' as const, data: withoutUndefined(data) })),
  },
  { weight: 1, arbitrary: letter.map((o) => ({ type: 'Opened' as const, data: { owner: o } })) },
  { weight: 1, arbitrary: letter.map((o) => ({ type: 'Skipped' as const, data: { owner: o } })) },
  { weight: 1, arbitrary: letter.map((o) => ({ type: 'Rejected' as const, data: { owner: o } })) },
  { weight: 1, arbitrary: letter.map((o) => ({ type: 'Closed' as const, data: { owner: o } })) },
  { weight: 1, arbitrary: letter.map((o) => ({ type: 'Reopened' as const, data: { owner: o } })) },
);

/** A removed account followed by a long run of events it skips, then a recreation: the outbox's split points. */
const longRun: fc.Arbitrary<LedgerAppend[]> = fc
  .record({ id: letter, length: fc.integer({ min: 95, max: 110 }), owner: letter })
  .map(({ id, length, owner: o }) => {
    const run: GeneratedEvent[] = [
      { type: 'Closed', data: { owner: o } },
      ...Array.from({ length }, (_, n) => ({ type: 'Deposited' as const, data: { owner: o, amount: (n % 9) + 1 } })),
      { type: 'Reopened', data: { owner: o } },
      { type: 'Deposited', data: { owner: o, amount: 5 } },
    ];
    // Two appends, so the run spans two commits (and, with `itemPerEvent`, fits a transaction's 100 items).
    const appends: LedgerAppend[] = [];
    for (let start = 0; start < run.length; start += 90) appends.push({ stream: 'A', id, events: run.slice(start, start + 90) });
    return appends;
  });

/**
 * Deposits carrying large, barely compressible memos: their outbox messages pass a transaction's 4 MB
 * together, so a row's fold is split over several writes by size.
 */
const largeMessages: fc.Arbitrary<LedgerAppend[]> = fc
  .record({ id: letter, count: fc.integer({ min: 50, max: 64 }), seed: fc.integer({ min: 1, max: 1_000_000 }) })
  .map(({ id, count, seed }) => {
    const events = Array.from({ length: count }, (_, n): GeneratedEvent => ({
      type: 'Deposited',
      data: { owner: 'a', amount: 1, memoSeed: seed + n },
    }));
    const appends: LedgerAppend[] = [];
    for (let start = 0; start < events.length; start += 20) appends.push({ stream: 'A', id, events: events.slice(start, start + 20) });
    return appends;
  });

/** `length` characters of seeded noise that gzip barely shrinks. */
function noise(seed: number, length: number): string {
  let state = seed >>> 0;
  let text = '';
  while (text.length < length) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text += state.toString(36);
  }
  return text.slice(0, length);
}

/** A workload: appends to both streams, sometimes with a long run of skipped events on a removed account, or large messages. */
export const workload: fc.Arbitrary<LedgerAppend[]> = fc
  .tuple(
    fc.array(
      fc.record({
        stream: fc.constantFrom(...STREAMS),
        id: letter,
        events: fc.array(newEvent, { minLength: 1, maxLength: 4 }),
        itemPerEvent: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      }),
      { minLength: 1, maxLength: 10 },
    ),
    fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: longRun }, { weight: 1, arbitrary: largeMessages }),
  )
  .map(([appends, extra]) => [...appends, ...(extra ?? [])]);

function withoutUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The error `evolve` throws for a `Rejected` event; `terminal` accepts it. */
export class Refused extends Error {}

/** The error a poisoned `evolve` throws (a bug deployed); nothing accepts it, so it fails its row. */
export class Poisoned extends Error {
  override readonly name = 'Poisoned';
}

/** Options shared by the ledger's projections: an outbox, a poison policy and which events `evolve` chokes on. */
export interface LedgerProjectionOptions {
  readonly outbox?: string;
  readonly poison?: PoisonPolicy;
  /** Until this says otherwise, `evolve` throws `Poisoned` for these events. */
  readonly isPoison?: (event: LedgerEvent) => boolean;
  readonly logger?: Logger;
}

function poisoned(options: LedgerProjectionOptions, event: LedgerEvent): void {
  if (options.isPoison?.(event) === true) throw new Poisoned(`evolve chokes on ${event.streamName}#${event.streamId}@${event.version}`);
}
const terminal = (error: unknown) => error instanceof Refused;

export const accountSchema = z.object({
  id: z.string(),
  owner: z.string(),
  balance: z.number(),
  deposits: z.number(),
  reopened: z.number(),
  version: z.number(),
});
export type Account = z.output<typeof accountSchema>;
export const zoneSchema = z.object({ id: z.string(), zone: z.string(), total: z.number(), count: z.number(), version: z.number() });
export type Zone = z.output<typeof zoneSchema>;
export const ownerSchema = z.object({ owner: z.string(), total: z.number(), events: z.number(), fromA: z.number(), fromB: z.number() });
export type Owner = z.output<typeof ownerSchema>;

export function accountModel(client: DynamoDBClient, table: string, name: string) {
  return new ReadModel({
    client,
    table,
    name,
    schema: accountSchema,
    key: { pk: { field: 'pk', composite: ['id'] }, sk: { field: 'sk', composite: [] } },
  });
}
export function zoneModel(client: DynamoDBClient, table: string, name: string) {
  return new ReadModel({
    client,
    table,
    name,
    schema: zoneSchema,
    key: { pk: { field: 'pk', composite: ['id'] }, sk: { field: 'sk', composite: ['zone'] } },
  });
}
export function ownerModel(client: DynamoDBClient, table: string, name: string) {
  return new ReadModel({
    client,
    table,
    name,
    schema: ownerSchema,
    key: { pk: { field: 'pk', composite: ['owner'] }, sk: { field: 'sk', composite: [] } },
  });
}

/** A message for each applied event: what the row looked like right after it. */
export type LedgerMessage = { readonly event: string; readonly type: string; readonly balance: number | undefined; readonly memo?: string };

export function evolveAccount(state: Account, event: LedgerEvent): Account | typeof skipEvent | typeof removeRow {
  switch (event.type) {
    case 'Opened':
      return { ...state, owner: event.data.owner };
    case 'Deposited':
      return { ...state, balance: state.balance + (event.data.amount ?? 0), deposits: state.deposits + 1 };
    case 'Skipped':
      return skipEvent;
    case 'Rejected':
      throw new Refused(`refused ${event.streamId}@${event.version}`);
    case 'Closed':
      return removeRow;
    case 'Reopened':
      return { ...state, reopened: state.reopened + 1 };
  }
}

export function initialAccount(id: string): Account {
  return { id, owner: '', balance: 0, deposits: 0, reopened: 0, version: 0 };
}

/** Accounts: one row per instance of A, with tombstones, recreation, skips and rejections. */
export function accountsProjection(
  stream: LedgerStream,
  model: ReturnType<typeof accountModel>,
  options: LedgerProjectionOptions & { revision: boolean },
) {
  return new Projection<LedgerStream, ReturnType<typeof accountModel>, Account>({
    name: `${model.name}-accounts`,
    stream,
    readModel: model,
    key: (id) => ({ id: id.id }),
    initial: (id) => initialAccount(id.id),
    evolve: (state, event) => {
      poisoned(options, event as LedgerEvent);
      return evolveAccount(state, event as LedgerEvent);
    },
    checkpoint: 'version',
    terminal,
    recreate: (event) => event.type === 'Reopened',
    revision: options.revision,
    ...(options.poison === undefined ? {} : { poison: options.poison }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.outbox === undefined
      ? {}
      : { outbox: { table: options.outbox, message: (event, { state }): LedgerMessage => ledgerMessage(event as LedgerEvent, state?.balance) } }),
  });
}

/** Zones: event-keyed rows of B, one per instance and zone a deposit names; every other event is ignored. */
export function zonesProjection(stream: LedgerStream, model: ReturnType<typeof zoneModel>, options: LedgerProjectionOptions = {}) {
  return new Projection<LedgerStream, ReturnType<typeof zoneModel>, Zone>({
    name: `${model.name}-zones`,
    stream,
    readModel: model,
    key: (id, event) => (event.type === 'Deposited' && event.data.zone !== undefined ? { id: id.id, zone: event.data.zone } : undefined),
    initial: (id, event) => ({ id: id.id, zone: String((event.data as { zone?: string }).zone), total: 0, count: 0, version: 0 }),
    evolve: (state, event) => {
      poisoned(options, event as LedgerEvent);
      return { ...state, total: state.total + ((event.data as { amount?: number }).amount ?? 0), count: state.count + 1 };
    },
    checkpoint: 'version',
    ...(options.poison === undefined ? {} : { poison: options.poison }),
  });
}

/** Owners: rows fed by every instance of A and B whose events name the owner (ids collide across A and B). */
export function ownersProjection(a: LedgerStream, b: LedgerStream, model: ReturnType<typeof ownerModel>, options: LedgerProjectionOptions) {
  return new MultiSourceProjection<{ a: LedgerStream; b: LedgerStream }, ReturnType<typeof ownerModel>, Owner>({
    name: `${model.name}-owners`,
    readModel: model,
    sources: {
      a: { stream: a, key: (_id, event) => ({ owner: event.data.owner }) },
      b: { stream: b, key: (_id, event) => ({ owner: event.data.owner }) },
    },
    initial: (key) => ({ owner: String(key['owner']), total: 0, events: 0, fromA: 0, fromB: 0 }),
    ...(options.poison === undefined ? {} : { poison: options.poison }),
    evolve: (state, event) => {
      poisoned(options, event as LedgerEvent);
      if (event.type === 'Skipped') return skipEvent;
      if (event.type === 'Rejected') throw new Refused(`refused ${event.streamName}#${event.streamId}@${event.version}`);
      const from = event.streamName === 'A' ? { fromA: state.fromA + 1 } : { fromB: state.fromB + 1 };
      return { ...state, ...from, total: state.total + ((event.data as { amount?: number }).amount ?? 0), events: state.events + 1 };
    },
    terminal,
    ...(options.outbox === undefined
      ? {}
      : { outbox: { table: options.outbox, message: (event): LedgerMessage => ledgerMessage(event as LedgerEvent, undefined) } }),
  });
}

/** What a reference fold of one account says: the row (live or tombstone), and what became of each event. */
export interface AccountTruth {
  readonly row: Account | undefined;
  readonly removed: boolean;
  readonly applied: ReadonlyArray<LedgerEvent>;
  /** After each applied event, the balance of the row (undefined once removed). */
  readonly balances: ReadonlyArray<number | undefined>;
}

/**
 * The account an instance's events give, folded here independently of the library: a removed row skips
 * everything but a reopening, a skip leaves the checkpoint where it was, a rejection moves it on a live row.
 */
export function foldAccount(id: string, events: ReadonlyArray<LedgerEvent>): AccountTruth {
  let state: Account | undefined;
  let last: Account | undefined;
  let removed = false;
  let checkpoint = 0;
  const applied: LedgerEvent[] = [];
  const balances: Array<number | undefined> = [];
  for (const event of events) {
    if (removed && event.type !== 'Reopened') continue;
    const base = state ?? initialAccount(id);
    if (event.type === 'Skipped') continue;
    if (event.type === 'Rejected') {
      if (state !== undefined) checkpoint = event.version;
      continue;
    }
    checkpoint = event.version;
    applied.push(event);
    if (event.type === 'Closed') {
      last = base;
      state = undefined;
      removed = true;
      balances.push(undefined);
      continue;
    }
    state = evolveAccount(base, event) as Account;
    removed = false;
    balances.push(state.balance);
  }
  const shown = removed ? last : state;
  return { row: shown === undefined ? undefined : { ...shown, version: checkpoint }, removed, applied, balances };
}

/** The outbox message of an applied event, with the row's balance right after it. */
export function ledgerMessage(event: LedgerEvent, balance: number | undefined): LedgerMessage {
  return { event: eventKey(event), type: event.type, balance, ...(event.data.memo === undefined ? {} : { memo: event.data.memo }) };
}

/** `<stream>#<id>@<version>`: an event's identity across streams. */
export function eventKey(event: { readonly streamName: string; readonly streamId: string; readonly version: number }): string {
  return `${event.streamName}#${event.streamId}@${event.version}`;
}
