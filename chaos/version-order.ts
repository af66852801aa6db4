/**
 * Whether a row's events were applied in version order, per source instance feeding it: within each
 * outcome's `applied`, and across calls where the calls came one after another (the replays of parked
 * rows, after the concurrent deliveries: a held event applied later must come after everything the row
 * applied before it was parked).
 */
import type { StreamEvent } from 'dynafold';
import { eventKey } from './world';

/** What an outcome says about a row: its key and the events it applied. */
interface AppliedBy {
  readonly key: unknown;
  readonly applied: ReadonlyArray<StreamEvent>;
}

export class VersionOrder {
  /** Per `<projection> <row> <instance>`: the newest version applied so far. */
  private readonly newest = new Map<string, number>();
  private sequential = false;
  readonly problems: string[] = [];

  /** An outcome of the concurrent deliveries: in order within itself; their calls overlap. */
  delivered(projection: string, outcome: AppliedBy): void {
    this.check(projection, outcome, false);
  }

  /** An outcome of a call made after every earlier one had returned (a replay or a skip of parked rows). */
  replayed(projection: string, outcome: AppliedBy): void {
    this.sequential = true;
    this.check(projection, outcome, true);
  }

  private check(projection: string, outcome: AppliedBy, afterAll: boolean): void {
    const inThisCall = new Map<string, number>();
    for (const event of outcome.applied) {
      const source = `${projection} ${JSON.stringify(outcome.key)} ${event.streamName}#${event.streamId}`;
      const before = inThisCall.get(source) ?? (afterAll ? (this.newest.get(source) ?? 0) : 0);
      if (event.version <= before)
        this.problems.push(`${projection} ${eventKey(event)} applied to ${JSON.stringify(outcome.key)} after version ${before}`);
      inThisCall.set(source, event.version);
      if (!afterAll && this.sequential) this.problems.push(`${projection}: a concurrent delivery's outcome came after a replay`);
      this.newest.set(source, Math.max(this.newest.get(source) ?? 0, event.version));
    }
  }
}
