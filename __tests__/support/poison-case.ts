import fc from 'fast-check';
import type { AnyProjection, FailedOutcome, MultiSourceRowOutcome, RowOutcome } from 'dynafold';
import { eventKey, Poisoned, type LedgerEvent } from './ledger';

/**
 * Poison for the ledger's property cases: runs of events `evolve` chokes on (several in one instance,
 * next to each other or one apart), rows parked after `afterAttempts`, then the fix deployed in two
 * rounds, each followed by `retryParked`: first some of the events are fixed, then the rest.
 */
export interface PoisonPlan {
  readonly afterAttempts: number;
  /** Each run: an instance (an index into the case's instances), its first event (an index into its events), how many and how far apart. */
  readonly runs: ReadonlyArray<{
    readonly instance: number;
    readonly first: number;
    readonly spacing: number;
    readonly fixedFirst: ReadonlyArray<boolean>;
  }>;
}

export const poisonPlans: fc.Arbitrary<PoisonPlan> = fc.record({
  afterAttempts: fc.integer({ min: 1, max: 3 }),
  runs: fc.array(
    fc.record({
      instance: fc.nat(),
      first: fc.nat(),
      spacing: fc.constantFrom(1, 1, 2),
      // One flag per poisoned event: fixed in the first round (else in the second). A run of one is a run
      // whose events coincide (a short instance wraps around).
      fixedFirst: fc.array(fc.boolean(), { minLength: 2, maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 2 },
  ),
});

/** Half the cases have no poison: the rest of the properties keep their share of runs. */
export const maybePoison: fc.Arbitrary<PoisonPlan | undefined> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: poisonPlans },
);

/** A plan made concrete on a case's history: the poisoned events (by `eventKey`) and the round that fixes each. */
export interface Poison {
  readonly afterAttempts: number;
  /** Poisoned events not fixed yet. */
  readonly bad: Set<string>;
  readonly rounds: ReadonlyArray<ReadonlyArray<string>>;
  readonly isPoison: (event: LedgerEvent) => boolean;
}

export function poisonOf(plan: PoisonPlan, history: ReadonlyMap<string, ReadonlyArray<LedgerEvent>>): Poison {
  const instances = [...history.keys()].sort();
  const rounds: [string[], string[]] = [[], []];
  for (const run of plan.runs) {
    const events = history.get(instances[run.instance % instances.length] as string) ?? [];
    run.fixedFirst.forEach((first, n) => {
      const event = events[(run.first + n * run.spacing) % events.length];
      if (event !== undefined && !rounds.flat().includes(eventKey(event))) rounds[first ? 0 : 1].push(eventKey(event));
    });
  }
  const bad = new Set(rounds.flat());
  return { afterAttempts: plan.afterAttempts, bad, rounds, isPoison: (event) => bad.has(eventKey(event)) };
}

/** The poison options of the ledger's projections for a case, none without poison. */
export function poisonOptions(poison: Poison | undefined) {
  return poison === undefined ? {} : { poison: { park: { afterAttempts: poison.afterAttempts } }, isPoison: poison.isPoison };
}

type Outcome = RowOutcome | MultiSourceRowOutcome;

/**
 * What parking promises of a delivery: a row parks after `afterAttempts` failed attempts, whatever else
 * reached it in between (another source's events, another lane's), so fewer attempts than that failed.
 */
export function expectParkedInTime(poison: Poison, failed: ReadonlyArray<FailedOutcome>): void {
  const attempts = new Map<string, number>();
  for (const outcome of failed) {
    if (!(outcome.error instanceof Poisoned)) continue;
    const key = JSON.stringify(outcome.key);
    attempts.set(key, (attempts.get(key) ?? 0) + 1);
  }
  for (const [key, count] of attempts) expect({ key, failedAttempts: count <= poison.afterAttempts - 1 }).toEqual({ key, failedAttempts: true });
}

/**
 * Deploys the fix in its rounds, each followed by `retryParked` of every projection, recording what each
 * replay applied. A replay may fail on an event the round left poisoned; after the last round no row is
 * parked.
 */
export async function fixInRounds(poison: Poison, projections: Record<string, AnyProjection>, applied: ReadonlyMap<string, string[]>): Promise<void> {
  for (const round of poison.rounds) {
    for (const event of round) poison.bad.delete(event);
    for (const [name, projection] of Object.entries(projections)) {
      const outcomes = (await (projection as unknown as Replayable).retryParked()) as ReadonlyArray<Outcome>;
      for (const outcome of outcomes) applied.get(name)?.push(...outcome.applied.map(eventKey));
    }
  }
  for (const [name, projection] of Object.entries(projections)) {
    const parked: unknown[] = [];
    for await (const row of (projection as unknown as Replayable).parkedRows()) parked.push(row);
    expect({ name, parked }).toEqual({ name, parked: [] });
  }
}

interface Replayable {
  retryParked(): Promise<ReadonlyArray<unknown>>;
  parkedRows(): AsyncIterable<unknown>;
}
