import type { Entry } from '../outcome';
import type { StreamEvent } from '../store';
import type { Logger } from '../util';
import { applyEntries, forward, type Operation, type SharedRowReads } from './engine';
import { countFailure, noteParkedEvents, parkedOf } from './parking';
import type { ProjectionRuntime } from './runtime';

/** How a delivery goes about a call: a backfill's choices, the caller's signal and logger. */
export interface DeliveryOptions {
  /** `false`: write no outbox message for the events applied (a backfill folds history, which is no news). @defaultValue true */
  readonly messages?: boolean | undefined;
  /**
   * Once aborted, no further row starts and the requests in flight are cut short: those rows fail with the
   * signal's reason (their records are delivered again; the checkpoints keep what was written).
   */
  readonly signal?: AbortSignal | undefined;
  /** Also told what happens to failing rows (the projection's own logger is, in any case). */
  readonly logger?: Logger | undefined;
  /** Where the rows are read, with those of deliveries running beside this one (a backfill's instances). */
  readonly rowReads?: SharedRowReads | undefined;
}

/**
 * The delivery of a call's events (a batch, `applyBatch`, `apply`, `catchUp`, a backfill's pages): each
 * row is brought forward from its checkpoints with them. A parked row is not folded: it notes how far its
 * events reached and is reported parked. A failure that is not transient counts towards parking the row
 * (with a `park` policy), which parks it once the count is reached.
 */
export function delivery<State>(projection: ProjectionRuntime<State>, messages = true): Operation<State> {
  return {
    ...forward<State>(),
    messages,
    prepare: async ({ runtime, group, row }) => {
      const record = parkedOf(row);
      if (record === undefined) return { fold: group };
      const parked = await noteParkedEvents(runtime.store, group, row, record);
      return parked === 'lost' ? 'lost' : { parked };
    },
    failed: async ({ runtime, call, group, row }, failure) => {
      const policy = { name: runtime.name, store: runtime.store, poison: projection.poison, logger: projection.logger };
      const counted = await countFailure(policy, call, group, row, failure);
      return counted === undefined || counted === 'counted' ? 'failed' : counted;
    },
  };
}

/** Delivers a call's events to their rows (see `delivery`); never rejects for a row's error: each row gets its own outcome. */
export function deliver<State>(
  projection: ProjectionRuntime<State>,
  entries: ReadonlyArray<Entry<StreamEvent>>,
  options: DeliveryOptions = {},
): ReturnType<typeof applyEntries<State>> {
  return applyEntries(projection, {
    entries,
    operation: delivery(projection, options.messages !== false),
    signal: options.signal,
    logger: options.logger,
    rowReads: options.rowReads,
  });
}
