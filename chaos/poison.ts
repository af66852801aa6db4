/**
 * The bugs a poison schedule deploys: each kind makes `evolve` throw on some events of the poisoned rows
 * (order summaries choke on odd or dear items, or on shipping; customer rows on odd or big purchases, or
 * on refunds; loyalty points never, so a poisoned customer row keeps getting events from its other
 * source). A row holds several such events, some in a row. The fixes are deployed in steps, a few kinds at
 * a time: every step but the last is a partial fix, after which the rows that still choke must stay parked.
 */
import type { StreamEvent } from 'dynafold';
import { randomInt, shuffle } from './random';

export type PoisonKind = 'oddPrice' | 'dearItem' | 'shipped' | 'oddPurchase' | 'bigPurchase' | 'refund';

/** The rows a kind poisons. */
export type PoisonedRows = 'orders' | 'customers';

const numberField = (event: StreamEvent, field: string): number => Number((event.data as Record<string, unknown>)[field]);

const KINDS: Readonly<Record<PoisonKind, { readonly rows: PoisonedRows; readonly chokesOn: (event: StreamEvent) => boolean }>> = {
  oddPrice: { rows: 'orders', chokesOn: (event) => event.type === 'ItemAdded' && numberField(event, 'price') % 2 === 1 },
  dearItem: { rows: 'orders', chokesOn: (event) => event.type === 'ItemAdded' && numberField(event, 'price') > 35 },
  shipped: { rows: 'orders', chokesOn: (event) => event.type === 'OrderShipped' },
  oddPurchase: { rows: 'customers', chokesOn: (event) => event.type === 'Purchased' && numberField(event, 'amount') % 2 === 1 },
  bigPurchase: { rows: 'customers', chokesOn: (event) => event.type === 'Purchased' && numberField(event, 'amount') > 60 },
  refund: { rows: 'customers', chokesOn: (event) => event.type === 'Refunded' },
};

const KINDS_OF: Readonly<Record<PoisonedRows, ReadonlyArray<PoisonKind>>> = {
  orders: ['oddPrice', 'dearItem', 'shipped'],
  customers: ['oddPurchase', 'bigPurchase', 'refund'],
};

/** A schedule's deployed bugs: which rows, which kinds, and the fixes in the order they are deployed. */
export interface PoisonWorld {
  /** Order summaries (by order id) and customer rows (by customer) the bugs hit. */
  readonly orders: ReadonlySet<string>;
  readonly customers: ReadonlySet<string>;
  /** The fixes, in deployment order: each step fixes its kinds; every kind is in exactly one step. */
  readonly fixSteps: ReadonlyArray<ReadonlyArray<PoisonKind>>;
  /** After each partial fix, skip the event some parked rows are parked on (`skipParked`). */
  readonly skips: boolean;
  /** The kinds fixed so far. */
  readonly fixed: Set<PoisonKind>;
}

/** Whether `evolve` throws on `event` for the row `row` of `rows`, with the fixes deployed so far. */
export function chokes(poison: PoisonWorld | undefined, rows: PoisonedRows, row: string, event: StreamEvent): boolean {
  if (poison === undefined || !poison[rows].has(row)) return false;
  return poison.fixSteps.some((step) => step.some((kind) => !poison.fixed.has(kind) && KINDS[kind].rows === rows && KINDS[kind].chokesOn(event)));
}

/**
 * A seeded poison world: a few orders and customers (at least one of each), one to three kinds of bug on
 * each, fixed in two or three steps of shuffled kinds (so one or two partial fixes).
 */
export function drawPoison(
  ids: { orders: ReadonlyArray<string>; customers: ReadonlyArray<string> },
  random: () => number,
  skips?: boolean,
): PoisonWorld {
  const pick = <T>(all: ReadonlyArray<T>) => {
    const chosen = all.filter(() => random() < 0.3);
    return chosen.length > 0 || all.length === 0 ? chosen : [all[randomInt(random, 0, all.length - 1)] as T];
  };
  const kinds = shuffle([...pick(KINDS_OF.orders), ...pick(KINDS_OF.customers)], random);
  const steps = randomInt(random, 2, Math.min(3, kinds.length));
  // Cut the shuffled kinds into `steps` non-empty steps at distinct places.
  const cuts = shuffle(
    Array.from({ length: kinds.length - 1 }, (_, i) => i + 1),
    random,
  )
    .slice(0, steps - 1)
    .sort((a, b) => a - b);
  const fixSteps = [0, ...cuts].map((from, i) => kinds.slice(from, [...cuts, kinds.length][i]));
  return {
    orders: new Set(pick(ids.orders)),
    customers: new Set(pick(ids.customers)),
    fixSteps,
    skips: skips ?? random() < 0.5,
    fixed: new Set(),
  };
}
