/**
 * A poison schedule after its deliveries: the poisoned rows are parked while every other row equals its
 * fold; then the fixes are deployed step by step (see `poison.ts`). After each step `retryParked` runs
 * (again while faults fail some calls) until no row is parked on an event that no longer fails. After a
 * partial fix, every row that still chokes must be parked on its first event that still fails (a single-
 * source row holding the fold of everything before it), and in some schedules the event a few rows are
 * parked on is skipped with `skipParked` (once or twice, so consecutive poison events are skipped too).
 * After the last fix no row is parked. The replays' events join `applied`, in call order.
 */
import { ValidationError, type EventRef, type ParkedRow, type StreamEvent } from 'dynafold';
import { foldSummary } from '../__tests__/support/order-projection';
import { chokes, type PoisonedRows, type PoisonWorld } from './poison';
import { seededRandom } from './random';
import { Poisoned } from './sources';
import type { ChaosSummary } from './summary';
import type { VersionOrder } from './version-order';
import { bind, canonical, checkRows, customerEvents, eventKey, type Bound, type Tables, type Truth } from './world';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

type Rows = 'summaries' | 'customers';
const ROWS: ReadonlyArray<Rows> = ['summaries', 'customers'];
const POISONED: Readonly<Record<Rows, PoisonedRows>> = { summaries: 'orders', customers: 'customers' };

/** What a replay or a skip reports about a row, as far as the checks here read it. */
interface ReplayOutcome {
  readonly status: string;
  readonly key?: unknown;
  readonly applied: ReadonlyArray<StreamEvent>;
  readonly error?: unknown;
}

/** A replay's failure that a deployed bug caused (the row stays parked), not a fault that passes by itself. */
function failedByBug(outcome: ReplayOutcome): boolean {
  for (let error = outcome.error; error instanceof Error; error = error.cause) if (error instanceof Poisoned) return true;
  return false;
}

/** Whether a replay or skip got as far as the fixes deployed let it (a transient fault stopped it otherwise). */
function settled(outcome: ReplayOutcome): boolean {
  return outcome.status !== 'failed' || failedByBug(outcome);
}

/** A projection's parked-row operations, as the checks call them. */
interface Parking {
  parkedRows(): AsyncIterable<ParkedRow<object>>;
  retryParked(): Promise<ReadonlyArray<ReplayOutcome>>;
  skipParked(key: never, options: { event?: EventRef }): Promise<ReplayOutcome | undefined>;
}

/** One poison schedule, after its deliveries. */
export interface PoisonRun {
  /** A clean client, for reading rows back. */
  readonly client: DynamoDBClient;
  readonly tables: Tables;
  readonly suffix: string;
  /** The projections on the faulty client, with the poisoned `evolve`. */
  readonly bound: Bound;
  readonly poison: PoisonWorld;
  readonly truth: Truth;
  readonly applied: Record<Rows, StreamEvent[]>;
  readonly order: VersionOrder;
  /** What befell events in the replays and skips (by `eventKey`): filled in here, read when a check fails. */
  readonly notes: Map<string, string[]>;
  readonly summary: ChaosSummary;
  readonly seed: number;
}

/** Deploys the fixes step by step, replaying and skipping as above; resolves the events skipped (by `eventKey`). */
export async function healPoisoned(run: PoisonRun): Promise<Set<string>> {
  const { poison, summary, seed } = run;
  const clean = bind(run.client, run.tables, run.suffix);
  const random = seededRandom(seed ^ 0x5a1e);
  const events = new Map([...[...run.truth.orders.values()].flat(), ...customerEvents(run.truth)].map((event) => [eventKey(event), event]));
  const chokesNow = (event: StreamEvent) =>
    event.streamName === 'Order' ? chokes(poison, 'orders', event.streamId, event) : chokes(poison, 'customers', customerOf(event), event);
  summary.poisonEvents += [...events.values()].filter(chokesNow).length;
  const whileParked = await checkRows(clean, run.truth);
  for (const row of whileParked.diverged.filter((row) => !poisonedRow(clean, poison, row)))
    summary.problem(`seed ${seed}: while rows were parked, diverged ${row}`);

  const skipped = new Set<string>();
  const everParked = new Set<string>();
  const stillFails = (name: Rows, parked: ParkedRow<object>) => {
    const event = events.get(eventKey(parked.event));
    return event !== undefined && chokes(poison, POISONED[name], rowOf(name, parked.key), event);
  };
  for (const [step, kinds] of poison.fixSteps.entries()) {
    for (const kind of kinds) poison.fixed.add(kind);
    const when = `seed ${seed}, fix ${step + 1} of ${poison.fixSteps.length} (${kinds.join(', ')})`;
    for (const name of ROWS) await replayUntilSettled(run, name, (parked) => stillFails(name, parked), everParked, when);
    if (step === poison.fixSteps.length - 1) break;
    summary.partialFixes++;
    await checkStillParked(run, clean, skipped, when);
    if (!poison.skips) continue;
    for (const name of ROWS) await skipSome(run, name, clean, skipped, random);
    await checkStillParked(run, clean, skipped, `${when}, then skips`);
  }
  summary.rowsParked += everParked.size;
  return skipped;
}

/** The customer row a purchase or loyalty event feeds. */
function customerOf(event: StreamEvent): string {
  return String((event.data as { customer?: unknown }).customer);
}

function rowOf(name: Rows, key: object): string {
  return String((key as Record<string, unknown>)[name === 'summaries' ? 'orderId' : 'customer']);
}

function parking(bound: Bound, name: Rows): Parking {
  return bound.projections[name];
}

/** Whether a row named in a diverged-row line is one the bugs hit. */
function poisonedRow(clean: Bound, poison: PoisonWorld, row: string): boolean {
  return (
    [...poison.orders].some((id) => row.startsWith(`${clean.summaries.name} ${id}:`)) ||
    [...poison.customers].some((customer) => row.startsWith(`${clean.customers.name} ${customer}:`))
  );
}

/**
 * `retryParked` until a call replayed every parked row without a transient failure and no row is parked
 * on an event that no longer fails (faults fail some listings and replays: what is parked is replayed again).
 */
async function replayUntilSettled(
  run: PoisonRun,
  name: Rows,
  stillFails: (parked: ParkedRow<object>) => boolean,
  everParked: Set<string>,
  when: string,
): Promise<void> {
  const projection = parking(run.bound, name);
  let replayedAll = false;
  for (let pass = 0; ; pass++) {
    const parked = await listParked(projection);
    if (parked !== undefined) {
      for (const row of parked) everParked.add(`${name} ${JSON.stringify(row.key)}`);
      const stale = parked.filter((row) => !stillFails(row));
      if (replayedAll && stale.length === 0) return;
      if (pass >= 30) {
        run.summary.problem(`${when}: ${stale.length} ${name} rows still parked on events that no longer fail after ${pass} replays`);
        return;
      }
    }
    const outcomes = await projection.retryParked().catch(() => undefined);
    for (const outcome of outcomes ?? []) record(run, name, outcome, `retryParked (${when}, pass ${pass + 1})`);
    replayedAll = outcomes !== undefined && outcomes.every(settled);
  }
}

function record(run: PoisonRun, name: Rows, outcome: ReplayOutcome, call: string): void {
  run.applied[name].push(...outcome.applied);
  for (const event of outcome.applied) note(run, event, `applied by ${call} (${describe(outcome)})`);
  run.order.replayed(name, { key: outcome.key, applied: outcome.applied });
}

/** What befell an event in the replays and skips, for the problem reported when it was applied wrongly. */
function note(run: PoisonRun, event: EventRef | StreamEvent, what: string): void {
  const key = eventKey(event);
  run.notes.set(key, [...(run.notes.get(key) ?? []), what]);
}

function describe(outcome: ReplayOutcome | undefined): string {
  if (outcome === undefined) return 'not parked';
  const error = outcome.error instanceof Error ? `: ${outcome.error.name} ${outcome.error.message}` : '';
  return `${outcome.status}${error}, applied [${outcome.applied.map(eventKey).join(' ')}]`;
}

async function listParked(projection: { parkedRows(): AsyncIterable<ParkedRow<object>> }): Promise<Array<ParkedRow<object>> | undefined> {
  const parked: Array<ParkedRow<object>> = [];
  try {
    for await (const row of projection.parkedRows()) parked.push(row);
    return parked;
  } catch {
    return undefined;
  }
}

/**
 * Skips the event some parked rows (a seeded half, at least one) are parked on; when the skip leaves the
 * row parked on a later event, skips that too half the time. Each skip is retried until saved.
 */
async function skipSome(run: PoisonRun, name: Rows, clean: Bound, skipped: Set<string>, random: () => number): Promise<void> {
  const parked = (await listParked(clean.projections[name])) ?? [];
  const chosen = parked.filter(() => random() < 0.5);
  if (chosen.length === 0 && parked[0] !== undefined) chosen.push(parked[0]);
  for (const row of chosen) {
    let event: EventRef | undefined = row.event;
    for (let skips = 0; event !== undefined && skips < 2; skips++) {
      const outcome = await skipUntilSaved(run, name, row.key, event);
      skipped.add(eventKey(event));
      run.summary.skips++;
      // Saved, and the row parked again on a later event (of the same call: the fold failed there).
      event = outcome !== undefined && outcome.status !== 'applied' && random() < 0.5 ? await parkedOn(clean, name, row.key) : undefined;
    }
  }
}

async function parkedOn(clean: Bound, name: Rows, key: object): Promise<EventRef | undefined> {
  const parked = (await listParked(clean.projections[name])) ?? [];
  return parked.find((row) => JSON.stringify(row.key) === JSON.stringify(key))?.event;
}

/** `skipParked(key, { event })` until it says the skip is saved; resolves its outcome (undefined when an earlier try's was). */
async function skipUntilSaved(run: PoisonRun, name: Rows, key: object, event: EventRef): Promise<ReplayOutcome | undefined> {
  const projection = parking(run.bound, name);
  for (let attempt = 0; attempt < 30; attempt++) {
    try {
      const outcome = await projection.skipParked(key as never, { event });
      note(run, event, `skip try ${attempt + 1} on ${JSON.stringify(key)}: ${describe(outcome)}`);
      // Not parked any more: an earlier try saved the skip (its answer lost) and replayed the row.
      if (outcome === undefined) return undefined;
      record(run, name, outcome, `skipping ${eventKey(event)}`);
      if (settled(outcome)) return outcome;
    } catch (error) {
      // The row no longer holds the event: an earlier try saved the skip, its answer lost.
      note(run, event, `skip try ${attempt + 1} rejected: ${String(error)}`);
      if (error instanceof ValidationError) return undefined;
    }
  }
  run.summary.problem(`seed ${run.seed}: skipping ${eventKey(event)} on ${name} ${JSON.stringify(key)} still failed after 30 tries`);
  return undefined;
}

/**
 * After a partial fix (and skips): every poisoned row that still holds an event that fails is parked on
 * one (a single-source row on the first, with the fold of the events before it); the others are not parked.
 */
async function checkStillParked(run: PoisonRun, clean: Bound, skipped: ReadonlySet<string>, when: string): Promise<void> {
  const { poison, truth, summary } = run;
  const parkedBy = async (name: Rows) =>
    new Map(((await listParked(clean.projections[name] as unknown as Parking)) ?? []).map((row) => [rowOf(name, row.key), row]));
  const parked = { summaries: await parkedBy('summaries'), customers: await parkedBy('customers') };
  const kept = <E extends StreamEvent>(events: ReadonlyArray<E>) => events.filter((event) => !skipped.has(eventKey(event)));
  const wrong = (message: string, event?: EventRef) => {
    summary.divergedRows++;
    summary.problem(`${when}: ${message}${event === undefined ? '' : history(run, skipped, event)}`);
  };
  for (const [name, rows] of [
    ['summaries', poison.orders],
    ['customers', poison.customers],
  ] as const) {
    for (const [row, record] of parked[name])
      if (!rows.has(row)) wrong(`${name} ${row}, which no bug hits, is parked on ${eventKey(record.event)}`, record.event);
  }
  for (const orderId of poison.orders) {
    const events = kept(truth.orders.get(orderId) ?? []);
    const first = events.find((event) => chokes(poison, 'orders', orderId, event));
    const record = parked.summaries.get(orderId);
    if (first === undefined) {
      if (record !== undefined) wrong(`order ${orderId} is parked on ${eventKey(record.event)}, though none of its events fails now`, record.event);
      continue;
    }
    if (record?.event.version !== first.version) {
      wrong(
        `order ${orderId} must be parked on ${eventKey(first)}, its first event that still fails; it is ${record === undefined ? 'not parked' : `parked on ${eventKey(record.event)}`}`,
        record?.event,
      );
      continue;
    }
    const before = events.filter((event) => event.version < first.version);
    const wanted = canonical({ ...foldSummary(orderId, before), version: first.version - 1 });
    const row = canonical(await clean.summaries.get({ orderId }, { consistent: true }));
    if (row !== wanted) wrong(`order ${orderId}, parked on ${eventKey(first)}: got ${row}, fold of the events before it ${wanted}`);
  }
  for (const customer of poison.customers) {
    const failing = kept(customerEvents(truth)).filter((event) => customerOf(event) === customer && chokes(poison, 'customers', customer, event));
    const record = parked.customers.get(customer);
    if (failing.length === 0) {
      if (record !== undefined)
        wrong(`customer ${customer} is parked on ${eventKey(record.event)}, though none of its events fails now`, record.event);
    } else if (record === undefined) wrong(`customer ${customer} is not parked, though ${failing.length} of its events still fail`);
    else if (!failing.some((event) => eventKey(event) === eventKey(record.event)))
      wrong(`customer ${customer} is parked on ${eventKey(record.event)}, which does not fail now`, record.event);
  }
}

/** What the replays and skips did to the event a row is parked on, for a problem about that row. */
function history(run: PoisonRun, skipped: ReadonlySet<string>, event: EventRef): string {
  const key = eventKey(event);
  const notes = run.notes.get(key);
  return ` (${key} ${skipped.has(key) ? 'was skipped' : 'was not skipped'}; ${notes === undefined ? 'no replay or skip touched it' : notes.join('; ')})`;
}
