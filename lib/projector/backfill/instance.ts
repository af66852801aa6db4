import { BackfillFailedError } from '../../errors';
import { EventStreamDefaults, commitsOf, type AnyEventStream, type InstanceRef } from '../../store';
import { backoffDelay, mayRetry, sleep, type RequestRate } from '../../util';
import { deliver } from '../delivery';
import type { SharedRowReads } from '../engine';
import { countsTowardsParking } from '../parking';
import type { ProjectionRuntime } from '../runtime';
import type { BackfillSettings } from './options';
import { countBackfill } from '../../telemetry';

/** The counts a backfill keeps as it goes. */
export interface Tally {
  instances: number;
  events: number;
  rowsWritten: number;
  rowsParked: number;
  /** Instances and items found by earlier runs of a resumed backfill. */
  resumedInstances: number;
  /** Saved progress was found and taken over (even if its pages found no instance). */
  resumed: boolean;
  segmentsDone: number;
  /** Per table: instances found and items scanned, for the estimate of the total. */
  readonly scans: Map<string, { found: number; scanned: number; itemCount: number | undefined }>;
}

/** What applying an instance shares with the rest of its backfill. */
export interface InstanceRun {
  readonly tally: Tally;
  readonly rate: RequestRate | undefined;
  readonly signal: AbortSignal;
  /** The rows' reads, shared with the instances applied beside this one. */
  readonly rowReads: SharedRowReads;
}

/**
 * Applies every event of one stream instance, a page of events at a time, without outbox messages (a
 * reaction's effects are written). A transient failure tries the instance again after a backoff. A failure
 * that counts towards parking was counted on its row: with a park policy the instance is tried again until
 * the row parks (each attempt counts once, as a redelivery would); without one, or if the row does not
 * park, the backfill stops.
 */
export async function backfillInstance<State>(
  runtime: ProjectionRuntime<State>,
  settings: BackfillSettings,
  ref: InstanceRef,
  run: InstanceRun,
): Promise<void> {
  const stream = runtime.streams.get(ref.streamName) as AnyEventStream;
  const fail = (error: unknown) =>
    run.signal.aborted ? run.signal.reason : new BackfillFailedError(runtime.name, `${ref.streamName}#${ref.streamId}`, error);
  const started = Date.now();
  for (let transient = 0, counted = 0; ;) {
    try {
      return await applyInstance(runtime, stream, ref, run);
    } catch (error) {
      if (run.signal.aborted) throw fail(error);
      const counts = countsTowardsParking(error);
      const attempts = counts ? ++counted : ++transient;
      const elapsed = Date.now() - started;
      // Failures that count towards parking are bounded by the poison policy, transient ones by `retry`.
      if (counts ? attempts >= (runtime.poison?.afterAttempts ?? 1) : !mayRetry(settings.retry, attempts, elapsed)) throw fail(error);
      const delay = backoffDelay(attempts - 1, settings.retry.backoff);
      await sleep(counts ? delay : Math.min(delay, settings.retry.maxElapsedMs - elapsed), run.signal);
    }
  }
}

/**
 * Applies an instance's events from its rows' checkpoints, a Query's page of events at a time: each page
 * goes through the row engine, which reads the rows first (with the rows of the instances applied beside
 * it, `rowReads`), so events a row already has are `alreadyApplied` and never folded again (a new `evolve`
 * that would choke on them is not asked).
 */
async function applyInstance<State>(runtime: ProjectionRuntime<State>, stream: AnyEventStream, ref: InstanceRef, run: InstanceRun): Promise<void> {
  const reading = { pageSize: EventStreamDefaults.readPageSize, consistent: true, afterCommitEnd: false, signal: run.signal };
  for await (const events of commitsOf(stream).eventPages(ref.streamId, { fromVersion: 1 }, reading)) {
    await run.rate?.take(REQUESTS_PER_PAGE, run.signal);
    const result = await deliver(
      runtime,
      events.map((event, position) => ({ event, position })),
      // History is no news to a read model; to a reaction, whose messages are its effects, it is (`backfillMessages`).
      { messages: runtime.backfillMessages, signal: run.signal, rowReads: run.rowReads },
    );
    // Counted before a failure is thrown: what a failed row applied first stays applied when the instance is tried again.
    let applied = 0;
    for (const outcome of result.outcomes) {
      applied += outcome.applied.length;
      if (outcome.status === 'parked') run.tally.rowsParked++;
    }
    run.tally.events += applied;
    countBackfill(runtime.name, 0, applied);
    run.tally.rowsWritten += result.stats.rowsWritten;
    const { rowsWritten, gapReads, lostRaces } = result.stats;
    const sent = 2 + rowsWritten + gapReads + 2 * lostRaces;
    if (sent > REQUESTS_PER_PAGE) await run.rate?.take(sent - REQUESTS_PER_PAGE, run.signal);
    else run.rate?.give(REQUESTS_PER_PAGE - sent);
    const failed = result.outcomes.find((outcome) => outcome.status === 'failed');
    if (failed?.status === 'failed') throw failed.error;
  }
}

/** What one page of an instance's events usually costs: its Query, a row read (shared with other instances' at best) and a row write. */
const REQUESTS_PER_PAGE = 3;
