import type { InlineResult } from '../inline';
import type { ProjectedRows } from '../read-your-writes';

/** What an append wrote. */
export interface AppendResult<Event> {
  /** The stream's version after the append: the last event's version. */
  readonly version: number;
  readonly events: ReadonlyArray<Event>;
  /** With the `inline` option: which projections the append's transaction applied, and which it left to the projector. */
  readonly inline?: InlineResult<Event> | undefined;
  /** With `waitFor`: the rows each projection answered, by projection name. */
  readonly projected?: ProjectedRows | undefined;
}

/** An append after a load that another append beat to the next version. */
export interface LostRace<Event> {
  readonly lostRace: true;
  /** The version the stream is at least at: the last one the winner took (or the first, without the winner). */
  readonly actualVersion: number;
  /** The events of the commit that took the version, when DynamoDB returned it. */
  readonly winner?: ReadonlyArray<Event> | undefined;
}
