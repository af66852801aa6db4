import type { ApplyStats } from '../../outcome';
import type { Logger } from '../../util';
import type { InHand } from './plan-rows';

/** What the rows of one call share: the events in hand, the counts, the caller's signal and logger. */
export interface CallContext<Event> {
  readonly inHand: InHand<Event>;
  readonly stats: ApplyStats;
  /** Once aborted, no row starts and every request in flight is cut short. */
  readonly signal?: AbortSignal | undefined;
  /** The caller's logger (`processBatch`, `lambdaHandler`, `runChangeFeed`): told what happens to failing rows, besides the projection's own. */
  readonly logger?: Logger | undefined;
}

/** A fresh context for a call. */
export function callContext<Event>(inHand: InHand<Event> = new Map(), signal?: AbortSignal, logger?: Logger): CallContext<Event> {
  return { inHand, stats: { rowsWritten: 0, gapReads: 0, lostRaces: 0 }, signal, logger };
}
