import { abortReason, cancelled, withSignal } from '../../dynamo';
import { ConcurrentModificationError } from '../../errors';
import { instanceKey, type StreamEvent } from '../../store';
import { backoffDelay, log, Semaphore, sleep, type LogLevel, type Logger } from '../../util';
import { EventFailure } from './fold-row';
import type { AppliedOutcome, ApplyResult, FailedOutcome, MultiSourceAppliedOutcome, ParkedOutcome, ParkedRow } from '../outcome';
import { countsTowardsParking, eventRef, noteParkedEvents, recordFailure } from './parking';
import { callContext, planRows, type CallContext, type Entry, type RowGroup } from './plan-rows';
import { readRow, readRows, type ReadRow } from './read-rows';
import { parkedEvents, tryWrite, type FoldPlan, type Step } from './build-write';
import { rowIdOf, type RowBasics, type RowRuntime } from './runtime';

type Key = Readonly<Record<string, unknown>>;
type Group = RowGroup<StreamEvent, Key>;
type Outcome = AppliedOutcome | MultiSourceAppliedOutcome | FailedOutcome | ParkedOutcome;

/** How `applyEntries` goes about a call (a backfill's choices; deliveries use the defaults). */
export interface ApplyOptions {
  /** `false`: write no outbox message for the events applied. */
  readonly messages?: boolean | undefined;
  /**
   * Once aborted, no further row starts and the requests in flight are cut short: those rows fail with the
   * signal's reason (their records are delivered again; the checkpoints keep what was written).
   */
  readonly signal?: AbortSignal | undefined;
  /** Also told what happens to failing rows (the projection's own logger is, in any case). */
  readonly logger?: Logger | undefined;
}

/**
 * Applies a call's events: planned per row (sorted, deduplicated), every row read in as few requests as
 * DynamoDB allows, then each row brought forward (concurrently across rows) by `applyRow`. Never rejects
 * for a row's error: each row gets its own outcome.
 */
export async function applyEntries<State>(
  projection: RowRuntime<State>,
  entries: ReadonlyArray<Entry<StreamEvent>>,
  options: ApplyOptions = {},
): Promise<ApplyResult<StreamEvent, Key, Outcome>> {
  const runtime = withCallSignal(projection, options.signal);
  const ours = entries.filter((entry) => runtime.streams.has(entry.event.streamName));
  const foreign = entries.filter((entry) => !runtime.streams.has(entry.event.streamName)).map((entry) => entry.position);
  const plan = planRows(ours, runtime.keyOf, (key) => rowIdOf(runtime, key));
  const groups = [...plan.rows.values()];
  // On failure each row reads itself, and reports its own error.
  const read = await readRows<State>(
    runtime.store,
    groups.map((group) => group.key),
  ).catch(() => undefined);
  const limit = new Semaphore(runtime.concurrency);
  const call = callContext(plan.inHand, options.signal, options.logger);
  const fold: FoldPlan = { mode: 'apply', ...(options.messages === false ? { messages: false } : {}) };
  const rows = await Promise.all(groups.map((group, index) => limit.use(() => applyRow(runtime, group, call, fold, read?.[index]))));
  const keyFailures = plan.keyFailures.map<FailedOutcome>(({ entry, error }) => ({
    status: 'failed',
    key: undefined,
    streamId: entry.event.streamId,
    error,
    applied: [],
    positions: [entry.position],
  }));
  return { outcomes: [...rows, ...keyFailures], ignored: [...plan.ignored, ...foreign].sort((a, b) => a - b), stats: call.stats };
}

/** The runtime as one call sees it: every request of its rows carries the call's signal. */
export function withCallSignal<State>(runtime: RowRuntime<State>, signal: AbortSignal | undefined): RowRuntime<State> {
  if (signal === undefined) return runtime;
  return { ...runtime, store: { ...runtime.store, documents: withSignal(runtime.store.documents, signal) } };
}

/**
 * Brings one row forward: one strongly consistent read of the row (or the one read for the whole call,
 * `prefetched`), at most one read of each source instance to fill a gap, one conditional write. A lost
 * race re-reads and tries again after a jittered, growing delay; a row that loses every try fails with
 * `ConcurrentModificationError`. A fold whose outbox messages don't fit one transaction goes on with
 * another write. With a `park` policy, a failure that is not transient is counted on the row, and the
 * row is parked once the count is reached; a parked row records how far its events reached instead.
 */
export async function applyRow<State>(
  runtime: RowRuntime<State>,
  group: Group,
  call: CallContext<StreamEvent>,
  plan: FoldPlan,
  prefetched?: ReadRow<State>,
): Promise<Outcome> {
  const steps: Step[] = [];
  const applied = () => steps.flatMap((step) => step.applied);
  const failed = (error: unknown): FailedOutcome => ({
    status: 'failed',
    key: group.key,
    streamId: group.streamId,
    error,
    applied: applied(),
    positions: group.positions,
  });
  const parkedOutcome = (parked: ParkedRow): ParkedOutcome => ({
    status: 'parked',
    key: group.key,
    streamId: group.streamId,
    parked,
    applied: applied(),
    positions: group.positions,
  });
  const lost = async (attempt: number) => sleep(backoffDelay(attempt, runtime.retry.backoff), call.signal);
  const { signal } = call;
  if (cancelled(signal)) return failed(abortReason(signal));
  try {
    let read = prefetched;
    for (let attempt = 0; attempt < runtime.retry.attempts;) {
      const row = read ?? (await readRow<State>(runtime.store, group.key));
      read = undefined;
      // A replay folds through whatever reached the parked row by now, also events noted since it began.
      const target = plan.unpark === true && row.parked !== undefined ? { ...group, events: await parkedEvents(runtime.streams, row, call) } : group;
      if (plan.mode === 'apply' && row.parked !== undefined && plan.unpark !== true) {
        const parked = await noteParkedEvents(runtime.store, group, row.parked);
        if (parked !== 'lost') return parkedOutcome(parked);
        await lost(attempt++);
        continue;
      }
      let failure: unknown;
      let now = row;
      try {
        const step = await tryWrite(runtime, target, call, row, plan);
        if (step === 'lost') {
          await lost(attempt++);
          continue;
        }
        steps.push(step);
        if (step.failure === undefined) {
          if (!step.more) return outcome(runtime, target, steps);
          continue;
        }
        // What came before the failing event was written: the failure is counted on the row as it is now.
        failure = step.failure;
        now = await readRow<State>(runtime.store, group.key);
      } catch (error) {
        failure = error;
      }
      // A cancelled call says nothing about the row: never counted towards parking it.
      if (cancelled(signal)) return failed(abortReason(signal));
      const { cause, event } = failureOf(failure, target);
      if (runtime.poison === undefined || plan.mode === 'rebuild' || !countsTowardsParking(cause)) return failed(cause);
      const parked = await recordFailure(runtime.store, group, now, { event, error: cause }, runtime.poison.afterAttempts);
      if (parked === 'lost') {
        await lost(attempt++);
        continue;
      }
      const details = { projection: runtime.name, key: group.key, event: eventRef(event), err: cause };
      if (parked === undefined) logRow(runtime, call, 'warn', details, 'row failed; the attempt counts towards parking it');
      else
        logRow(
          runtime,
          call,
          'error',
          { ...details, attempts: parked.attempts },
          'row parked: its events are set aside until retryParked or skipParked',
        );
      return parked === undefined || plan.unpark === true ? failed(cause) : parkedOutcome(parked);
    }
    return failed(new ConcurrentModificationError(runtime.name, group.key, runtime.retry.attempts));
  } catch (error) {
    return failed(cancelled(signal) ? abortReason(signal) : failureOf(error, group).cause);
  }
}

/** Logs what happened to a row to the projection's logger and to the call's, when the caller gave another. */
function logRow(
  runtime: Pick<RowRuntime<unknown>, 'logger'>,
  call: CallContext<StreamEvent>,
  level: LogLevel,
  details: Record<string, unknown>,
  message: string,
): void {
  log(runtime.logger, level, details, message);
  if (call.logger !== runtime.logger) log(call.logger, level, details, message);
}

/** The error a write failed with, and the event it is put down to (see `EventFailure`). */
function failureOf(error: unknown, group: Group): { cause: unknown; event: StreamEvent } {
  if (error instanceof EventFailure) return { cause: error.cause, event: error.event as StreamEvent };
  return { cause: error, event: group.events[0] as StreamEvent };
}

function outcome(runtime: RowBasics, group: Group, steps: ReadonlyArray<Step>): Outcome {
  const first = steps[0] as Step;
  const last = steps[steps.length - 1] as Step;
  const handled = {
    status: 'applied' as const,
    key: group.key,
    applied: steps.flatMap((step) => step.applied),
    alreadyApplied: first.alreadyApplied,
    skipped: steps.flatMap((step) => step.skipped),
    rejected: steps.flatMap((step) => step.rejected),
    revision: last.revision,
    positions: group.positions,
  };
  if (runtime.store.checkpoints.kind === 'perInstance') return { ...handled, sources: Object.fromEntries(last.checkpoints) };
  return { ...handled, streamId: group.streamId, version: last.checkpoints.get(instanceKey(group.events[0] as StreamEvent)) ?? 0 };
}
