import { abortReason, cancelled } from '../../dynamo';
import { ConcurrentModificationError } from '../../errors';
import { instanceKey, type StreamEvent } from '../../store';
import { backoffDelay, mayRetry, sleep } from '../../util';
import type { AppliedOutcome, FailedOutcome, MultiSourceAppliedOutcome, ParkedOutcome, ParkedRow } from '../../outcome';
import { ProjectionDefaults } from '../defaults';
import { buildWrite, checkpointsOf, type Step } from './build-write';
import type { CallContext } from './call-context';
import { claimRow } from './claim-row';
import { EventFailure } from './fold-row';
import type { Operation } from './operation';
import type { Key, RowGroup } from './plan-rows';
import { readRow, type ReadRow } from './read-rows';
import type { CheckpointStrategy, RowRuntime } from './row-store';
import { RowWatch } from './row-watch';
import type { Turn } from './row-turns';
import { putRow, sendRowWrite } from './write-row';
import { Attr, inChildSpan, rowSpan, type TracedSpan } from '../../telemetry';

type Group = RowGroup<StreamEvent, Key>;

/** What bringing one row forward reports. */
export type RowResult = AppliedOutcome | MultiSourceAppliedOutcome | FailedOutcome | ParkedOutcome;

/** One row to bring forward, and how. */
export interface RowApplication<State> {
  readonly runtime: RowRuntime<State>;
  /** The row's events of the call. */
  readonly group: Group;
  readonly call: CallContext<StreamEvent>;
  /** What each attempt folds, and what a failure does. */
  readonly operation: Operation<State>;
  /** The row as the call read it already (`readRows`); `undefined` reads it first. */
  readonly prefetched?: ReadRow<State> | undefined;
  /** `prefetched` is the row as this process remembers it (`RowMemory`), not as read: a write it fails is no race. */
  readonly remembered?: boolean | undefined;
  /** The call's turn on the row in this process (see `RowTurns`): told what the row is left as. */
  readonly turn?: Turn | undefined;
}

/**
 * What one attempt at a row ends in: its outcome, or another attempt, after a lost race (which waits and
 * counts towards `retry.attempts`) or because the fold goes on with another write (which does neither).
 */
type Attempt = RowResult | 'lostRace' | 'moreWrites';

/**
 * Brings one row forward: one strongly consistent read of the row (or the one read for the whole call,
 * `prefetched`, or the row as this process last wrote it, `remembered`), at most one read of each source instance to fill a gap, one conditional write. A lost
 * race re-reads the row and tries again after a jittered, growing delay, with the events already in hand
 * (a winner at or past this call's events leaves nothing to write); a row that loses `retry.attempts`
 * tries without the row moving on fails with `ConcurrentModificationError`. A row another writer is in
 * the middle of bringing forward in several writes (an outbox's transactions) is watched, not raced (see
 * `RowWatch`). A fold whose outbox messages don't fit one transaction goes on with another write. What an
 * attempt folds and what its failure does are the operation's (see `Operation`).
 */
export async function applyRow<State>(application: RowApplication<State>): Promise<RowResult> {
  const { runtime, group, call } = application;
  const { signal } = call;
  const steps: Step[] = [];
  const failed = (error: unknown) => failedOutcome(group, steps, error);
  if (cancelled(signal)) return failed(abortReason(signal));
  try {
    let read = application.prefetched;
    let remembered = application.remembered === true;
    const started = Date.now();
    let lostRaces = 0;
    // Lost races after which the row had not moved forward: only those use up `retry.attempts`.
    let stalled = 0;
    let lostOn: ReadRow<State> | undefined;
    // The row as this call's own last write left it: marked `more` by this call, not another writer's to watch.
    let own = false;
    const watch = new RowWatch<State>({
      moved: (before, now) => movedForward(runtime, group, before, now),
      covers: (row) => covers(runtime, group, row),
      stallMs: ProjectionDefaults.watchStallMs,
      backoff: runtime.retry.backoff,
    });
    for (;;) {
      if (read === undefined) application.turn?.leave(undefined);
      const row = read ?? (await readRow<State>(runtime.store, group.key));
      read = undefined;
      if (!own && watch.holdsOff(row, Date.now())) {
        await sleep(watch.delay(), signal);
        continue;
      }
      own = false;
      if (lostOn !== undefined) {
        // A race lost to a writer that moved the row's checkpoints on is progress, not contention: there
        // are only so many events to go before the row is at or past this call's, which needs no write.
        if (!movedForward(runtime, group, lostOn, row)) stalled++;
        if (!mayRetry(runtime.retry, stalled, Date.now() - started)) break;
        lostOn = undefined;
      }
      const attempt = await attemptRow(application, row, steps, lostRaces > 0);
      if (attempt !== 'lostRace') remembered = false;
      if (attempt === 'moreWrites') {
        own = true;
        continue;
      }
      if (attempt !== 'lostRace') return attempt;
      if (remembered) {
        // The row changed since this process wrote it (or was there after all): read it, at once.
        remembered = false;
        continue;
      }
      lostOn = row;
      await sleep(backoffDelay(lostRaces, runtime.retry.backoff), signal);
      lostRaces++;
    }
    return failed(new ConcurrentModificationError(runtime.name, group.key, lostRaces));
  } catch (error) {
    return failed(cancelled(signal) ? abortReason(signal) : failureOf(error, group).cause);
  }
}

/** Whether any checkpoint the call's events fold from is further on in `now` than in `before`. */
function movedForward<State>(runtime: RowRuntime<State>, group: Group, before: ReadRow<State>, now: ReadRow<State>): boolean {
  const was = checkpointsOf(runtime, group, before);
  const is = checkpointsOf(runtime, group, now);
  return group.events.some((event) => (is.get(instanceKey(event)) ?? 0) > (was.get(instanceKey(event)) ?? 0));
}

/** Whether the row's checkpoints are at or past every event of the call's (it needs no write for them). */
function covers<State>(runtime: RowRuntime<State>, group: Group, row: ReadRow<State>): boolean {
  const checkpoints = checkpointsOf(runtime, group, row);
  return group.events.every((event) => event.version <= (checkpoints.get(instanceKey(event)) ?? 0));
}

/**
 * One read-fold-write of the row as read, as the operation prepares it, or the operation's handling of
 * its failure; adds the write's step to `steps`. `contended`: the call lost a race for the row already.
 */
async function attemptRow<State>(application: RowApplication<State>, row: ReadRow<State>, steps: Step[], contended: boolean): Promise<Attempt> {
  const { runtime, group, call, operation } = application;
  const { signal } = call;
  const prepared = await operation.prepare({ runtime, call, group, row });
  if (prepared === 'lost') return 'lostRace';
  if ('parked' in prepared) return parkedOutcome(group, steps, prepared.parked, checkpointsOf(runtime, group, row));
  const target = prepared.fold;
  let failure: unknown;
  let now = row;
  try {
    const step = await tryWrite({ application, group: target, row, contended });
    if (step === 'lost') return 'lostRace';
    steps.push(step);
    if (step.failure === undefined) return step.more ? 'moreWrites' : appliedOutcome(runtime.store.checkpoints, target, steps);
    // What came before the failing event was written: the failure is handled on the row as it is now.
    failure = step.failure;
    now = await readRow<State>(runtime.store, group.key);
  } catch (error) {
    failure = error;
  }
  // A cancelled call says nothing about the row: its failure is no operation's to handle.
  if (cancelled(signal)) return failedOutcome(group, steps, abortReason(signal));
  const { cause, event } = failureOf(failure, target);
  const handled = await operation.failed({ runtime, call, group, row: now }, { event, error: cause });
  if (handled === 'lost') return 'lostRace';
  return handled === 'failed' ? failedOutcome(group, steps, cause) : parkedOutcome(group, steps, handled, checkpointsOf(runtime, group, now));
}

/** One write attempt: the application, the events it folds (`group`), the row as read, and whether the call lost a race for it already. */
interface WriteAttempt<State> {
  readonly application: RowApplication<State>;
  readonly group: Group;
  readonly row: ReadRow<State>;
  readonly contended: boolean;
}

/**
 * One read-fold-write of a row; `'lost'` when another writer changed it since it was read. A failure
 * leaves as an `EventFailure` naming the event it is put down to: the event whose `evolve` threw, else the
 * first event the write would have applied. Traced as a child of the call's span, with the row's key and
 * the versions it applies, linked to the appends of every event it was given or folded (those read to fill
 * a gap too), and failed when an event failed, even after the events before it were written.
 */
function tryWrite<State>(attempt: WriteAttempt<State>): Promise<Step | 'lost'> {
  const { runtime } = attempt.application;
  return inChildSpan(
    () => rowSpan(runtime.name, runtime.store.readModel.table, attempt.group.key),
    async (span) => {
      const folded: StreamEvent[] = [];
      try {
        return await writeOnce(attempt, span, folded);
      } finally {
        // Linked once the fold is known, the delivered events' appends first: what a gap read brought is
        // only known then, and an SDK keeps the first links of a span past its limit (128 by default).
        if (span.recording) span.link([...attempt.group.events, ...folded]);
      }
    },
  );
}

/** `folded` is given the events the fold applied, for the span's links. */
async function writeOnce<State>(
  { application, group, row, contended }: WriteAttempt<State>,
  span: TracedSpan,
  folded: StreamEvent[],
): Promise<Step | 'lost'> {
  const { runtime, call, operation } = application;
  let attempted = group.events[0] as StreamEvent;
  try {
    const built = await buildWrite({ runtime, group, call, row, fold: operation, attempting: (event) => (attempted = event) });
    if (span.recording) {
      folded.push(...built.step.applied);
      span.set({ [Attr.eventVersions]: built.step.applied.map((event) => event.version), [Attr.rowWritten]: false });
    }
    if (built.write === undefined) return built.step;
    // The first of several writes claims the row where other writers may race for it (this call lost a
    // race, or its fold fills a gap that another lane's events are in): a lost claim costs a small write,
    // not a transaction of messages. A fold of the call's own events alone, in order, does without.
    const claims = built.step.more && !row.more && (contended || fillsGap(group, built.step.applied));
    const from = claims ? await claimRow(runtime.store, row, group.key) : row;
    if (from === undefined || !(await sendRowWrite(runtime.store, putRow(runtime.store, from, built.write.item), built.write.extras))) {
      call.stats.lostRaces++;
      return 'lost';
    }
    call.stats.rowsWritten++;
    // The row as written, for the next call of this process (the last write of a fold that went through only).
    const complete = !built.step.more && built.step.failure === undefined;
    application.turn?.leave(complete ? { item: built.write.item } : undefined);
    if (complete) runtime.memory?.keep(group.rowId, built.write.item);
    span.set({ [Attr.rowWritten]: true });
    // What came before the failing event is written; the failure is still the row's, handled by the caller.
    if (built.step.failure !== undefined) span.fail(built.step.failure.cause);
    return built.step;
  } catch (error) {
    const failure = error instanceof EventFailure ? error : new EventFailure(attempted, error);
    span.fail(failure.cause);
    throw failure;
  }
}

/** Whether a fold applies events the call was not delivered (read from the store to fill a gap). */
function fillsGap(group: Group, applied: ReadonlyArray<StreamEvent>): boolean {
  const delivered = new Set(group.events.map(eventId));
  return applied.some((event) => !delivered.has(eventId(event)));
}

/** The error a write failed with, and the event it is put down to (see `EventFailure`). */
function failureOf(error: unknown, group: Group): { cause: unknown; event: StreamEvent } {
  if (error instanceof EventFailure) return { cause: error.cause, event: error.event as StreamEvent };
  return { cause: error, event: group.events[0] as StreamEvent };
}

/** What every outcome of the row names: its key and stream, what this call applied to it, its records' positions. */
function rowOf(group: Group, steps: ReadonlyArray<Step>) {
  return { key: group.key, streamId: group.streamId, applied: steps.flatMap((step) => step.applied), positions: group.positions };
}

function failedOutcome(group: Group, steps: ReadonlyArray<Step>, error: unknown): FailedOutcome {
  return { status: 'failed', ...rowOf(group, steps), error };
}

/**
 * A parked row: what the call wrote to it before, and its events past the row's checkpoints (`checkpoints`,
 * as last read) that it did not write, set aside.
 */
function parkedOutcome(group: Group, steps: ReadonlyArray<Step>, parked: ParkedRow, checkpoints: ReadonlyMap<string, number>): ParkedOutcome {
  const row = rowOf(group, steps);
  const written = new Set(row.applied.map(eventId));
  const setAside = group.events.filter((event) => event.version > (checkpoints.get(instanceKey(event)) ?? 0) && !written.has(eventId(event)));
  return { status: 'parked', ...row, parked, setAside };
}

/** An event's identity within a call: its stream instance and version. */
function eventId(event: StreamEvent): string {
  return `${instanceKey(event)}@${event.version}`;
}

function appliedOutcome(checkpoints: CheckpointStrategy, group: Group, steps: ReadonlyArray<Step>): RowResult {
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
  return checkpoints.outcome(handled, group, last.checkpoints);
}
