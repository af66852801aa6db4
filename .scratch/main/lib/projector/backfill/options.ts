import { requireFunction, requireInteger, requireNumber, requireText, resolveRetry, type ResolvedRetry, type RetryOptions } from '../../util';
import { ProjectionDefaults } from '../defaults';

/** Settings of `backfill` (see {@link ProjectionDefaults.backfill} for the defaults). */
export interface BackfillOptions {
  /** Segments of the parallel Scan of each events table, scanned at once. */
  readonly segments?: number | undefined;
  /** Stream instances applied at once, across segments. */
  readonly concurrency?: number | undefined;
  /**
   * Stops the backfill: no request starts once it aborted (aborted before the call, none at all), the requests
   * in flight are cut short, the pages finished stay saved, and the call rejects with the reason.
   */
  readonly signal?: AbortSignal | undefined;
  /** Called as pages complete, at most once per `progressIntervalMs`, and once at the end. */
  readonly onProgress?: ((progress: BackfillProgress) => void) | undefined;
  /** The least time between two `onProgress` calls, in ms. */
  readonly progressIntervalMs?: number | undefined;
  /** Names the run whose progress is saved: two backfills of one projection at once need two names. */
  readonly run?: string | undefined;
  /** Forget the saved progress of an unfinished run and start over. */
  readonly restart?: boolean | undefined;
  /**
   * Requests per second the backfill may send (scan pages, event reads, row reads and writes, and its own
   * progress reads, writes and deletes; counted as it goes), so it leaves capacity to production traffic.
   * Unlimited when absent.
   */
  readonly throttle?: { readonly requestsPerSecond: number } | undefined;
  /** Items a scan page reads (progress is saved per page); DynamoDB's 1 MB page when absent. */
  readonly pageSize?: number | undefined;
  /** How a stream instance whose rows failed transiently (throttled, say) is tried again. */
  readonly retry?: RetryOptions | undefined;
}

/** How far a backfill is. */
export interface BackfillProgress {
  /** Stream instances applied, by this run and by the runs it resumed. */
  readonly instancesDone: number;
  /** The instances there are, estimated from the share of the table scanned; `undefined` until known. */
  readonly instancesEstimate: number | undefined;
  /** Events this run applied (none for rows that were already up to date). */
  readonly eventsApplied: number;
  readonly rowsWritten: number;
  /** Rows the projection's poison policy parked. */
  readonly rowsParked: number;
  readonly segmentsDone: number;
  /** Scan segments in all (segments × events tables). */
  readonly segments: number;
  readonly elapsedMs: number;
  /** This run's rate. */
  readonly instancesPerSecond: number;
  /** Time left at this rate; `undefined` while there is no estimate. */
  readonly etaMs: number | undefined;
  /** This run took over from a backfill that had stopped. */
  readonly resumed: boolean;
  readonly done: boolean;
}

/** @internal the options with their defaults, validated. */
export interface BackfillSettings {
  readonly segments: number;
  readonly concurrency: number;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((progress: BackfillProgress) => void) | undefined;
  readonly progressIntervalMs: number;
  readonly run: string;
  readonly restart: boolean;
  readonly requestsPerSecond: number | undefined;
  readonly pageSize: number | undefined;
  readonly retry: ResolvedRetry;
}

/** @internal */
export function resolveBackfillOptions(projection: string, options: BackfillOptions): BackfillSettings {
  const where = `${projection}.backfill`;
  const defaults = ProjectionDefaults.backfill;
  return {
    segments: requireInteger('segments', options.segments ?? defaults.segments, 1, 1_000_000, where),
    concurrency: requireInteger('concurrency', options.concurrency ?? defaults.concurrency, 1, undefined, where),
    signal: options.signal,
    onProgress: options.onProgress === undefined ? undefined : requireFunction('onProgress', options.onProgress, where),
    progressIntervalMs: requireNumber('progressIntervalMs', options.progressIntervalMs ?? defaults.progressIntervalMs, 0, { where }),
    run: requireText('run', options.run ?? defaults.run, where),
    restart: options.restart === true,
    requestsPerSecond:
      options.throttle === undefined
        ? undefined
        : requireNumber('throttle.requestsPerSecond', options.throttle.requestsPerSecond, 1, { unit: 'a number of requests', where }),
    pageSize: options.pageSize === undefined ? undefined : requireInteger('pageSize', options.pageSize, 1, undefined, where),
    retry: resolveRetry(options.retry, defaults.retry, where),
  };
}
