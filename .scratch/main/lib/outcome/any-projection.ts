import type { AnyEventStream, StreamEvent } from '../store';
import type { Logger } from '../util';
import type { ApplyResult, Entry, MultiSourceRowOutcome, RowOutcome } from './outcome';

/** Options of a projection's calls (`applyBatch`, `apply`, `catchUp`, `rebuild`). */
export interface CallOptions {
  /**
   * Cancels the call: no further row starts, and the requests in flight are aborted. `applyBatch` reports
   * the rows it did not finish as failed with the signal's reason; the others reject with it.
   */
  readonly signal?: AbortSignal | undefined;
}

/** Options of a projection's `applyEntries`: a call's, and the logger of the batch it serves. */
export interface EntryOptions extends CallOptions {
  /** Told what happens to failing rows, besides the projection's own logger. */
  readonly logger?: Logger | undefined;
}

/** What routing a batch needs of a projection, whatever its types. */
export interface AnyProjection {
  readonly name: string;
  /** The streams whose events the projection folds. */
  readonly streams: ReadonlyArray<AnyEventStream>;
  /** @internal */
  applyEntries(
    entries: ReadonlyArray<Entry<StreamEvent>>,
    options?: EntryOptions,
  ): Promise<ApplyResult<StreamEvent, Readonly<Record<string, unknown>>, RowOutcome | MultiSourceRowOutcome>>;
}
