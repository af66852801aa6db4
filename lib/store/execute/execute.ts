import { ConcurrencyError } from '../../errors';
import { backoffDelay, mayRetry, sleep, type RetryOptions } from '../../util';
import { Attr, SpanEvents, inSpan, spanEvent, streamSpan } from '../../telemetry';
import { appendAfterLoad, resolveCallRetry } from '../append';
import { EventStreamDefaults } from '../defaults';
import type { InlineProjection, InlineResult } from '../inline';
import {
  foldAfter,
  foldingEvolve,
  loadAndSnapshot,
  loadState,
  readConsistency,
  snapshotIfDue,
  type Decider,
  type LoadOptions,
  type Loaded,
} from '../load';
import { waitForProjections, type ProjectedRows, type WaitForProjections } from '../read-your-writes';
import { formatStreamId, type StreamDefinition } from '../stream-definition';
import type { StreamEvent } from '../types';

/** Options of `execute`. */
export interface CommandOptions<State = unknown> extends LoadOptions<State> {
  /**
   * How a command that lost to a concurrent append (`ConcurrencyError`) loads, decides and appends again:
   * `attempts` in all, waiting `backoff` between them, none started `maxElapsedMs` after the first. The
   * first try again, which decides on the commit that won (DynamoDB answers the conflict with it), does not
   * wait; the waits grow from `backoff.initialMs` from the second on. Out of tries or time, the last `ConcurrencyError` is
   * thrown. Invalid, the call fails with `ValidationError`.
   * @defaultValue 10 attempts, 5 ms growing ×2 to 200 ms, no time limit ({@link EventStreamDefaults.commandRetry})
   */
  readonly retry?: RetryOptions | undefined;
  /**
   * Makes a repeated command append nothing and report the state. The events a repeated command decides
   * may differ (the state has moved on), so the key is bound to `request`, not to them: the same key with
   * another `request` fails with `IdempotencyMismatchError`.
   */
  readonly idempotencyKey?: string | undefined;
  /**
   * Whether the command's load reads strongly consistent. An eventually consistent load costs half the read
   * units and is safe: the append is conditioned on the version after the one loaded, so a stale load only
   * costs a conflict, and the retry goes on from the commit that won (or loads strongly consistent).
   * @defaultValue false ({@link EventStreamDefaults.commandConsistentLoad})
   */
  readonly consistent?: boolean | undefined;
  /** The command's input, compared (hashed) when `idempotencyKey` comes again. @defaultValue none: any repeat matches */
  readonly request?: unknown;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /** Projections whose rows to write in the append's transaction when they can (see `AppendOptions.inline`). */
  readonly inline?: ReadonlyArray<InlineProjection> | undefined;
  /** Read-your-writes: resolve once these projections' rows reflect the appended events (see `AppendOptions.waitFor`). */
  readonly waitFor?: WaitForProjections | undefined;
}

/** What a command did: the appended events (maybe none), the resulting version and state. */
export interface CommandResult<State, Event> extends Loaded<State> {
  readonly events: ReadonlyArray<Event>;
  /** With the `inline` option and events appended: which projections the append applied (see `AppendResult.inline`). */
  readonly inline?: InlineResult<Event> | undefined;
  /** With `waitFor`: the rows each projection answered, by projection name. */
  readonly projected?: ProjectedRows | undefined;
}

/**
 * The execute action (`EventStream.execute`): load → decide → append with `expectedVersion`, retrying on
 * `ConcurrencyError` a bounded number of times; with `waitFor`, once the projections reflect what it appended.
 */
export async function execute<State>(
  stream: StreamDefinition,
  id: unknown,
  decider: Decider<State, StreamEvent, unknown>,
  options: CommandOptions<State> = {},
): Promise<CommandResult<State, StreamEvent>> {
  const { waitFor, ...command } = options;
  const result = await inSpan(
    () => streamSpan('execute', stream),
    async (span) => {
      const streamId = formatStreamId(stream, id);
      span.set({ [Attr.streamId]: streamId });
      const executed = await executeCommand(stream, streamId, decider, command);
      span.set({ [Attr.version]: executed.version, [Attr.eventCount]: executed.events.length });
      return executed;
    },
  );
  // A command that decided nothing wrote nothing to wait for.
  return waitFor === undefined || result.events.length === 0
    ? result
    : { ...result, projected: await waitForProjections(result.events, waitFor, options.signal) };
}

async function executeCommand<State>(
  stream: StreamDefinition,
  streamId: string,
  decider: Decider<State, StreamEvent, unknown>,
  options: CommandOptions<State>,
): Promise<CommandResult<State, StreamEvent>> {
  const retry = resolveCallRetry(options.retry, EventStreamDefaults.commandRetry, 'a command');
  const consistent = readConsistency(options.consistent, EventStreamDefaults.commandConsistentLoad);
  const started = Date.now();
  const first = await loadAndSnapshot(stream, streamId, decider, options, consistent);
  let loaded: Loaded<State> = first;
  // The version of the snapshot the state stands on: a fold past it by `snapshot.every` saves a new one.
  let snapshotAt = first.snapshotAt;
  let waits = 0;
  for (let attempt = 0; ; attempt++) {
    const { state, version } = loaded;
    const decided = (await decider.decide?.(state, version)) ?? [];
    if (decided.length === 0) return { state, version, events: [] };
    const appended = await appendAfterLoad(stream, streamId, decided, {
      expectedVersion: version,
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey, request: { command: options.request ?? null } }),
      ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.inline === undefined ? {} : { inline: options.inline }),
    });
    if ('lostRace' in appended) {
      spanEvent(SpanEvents.retry, { [Attr.attempt]: attempt + 1, [Attr.expectedVersion]: version, [Attr.version]: appended.actualVersion });
      const elapsed = Date.now() - started;
      if (!mayRetry(retry, attempt + 1, elapsed)) throw new ConcurrencyError(stream.name, streamId, version, appended.actualVersion);
      // The first try again, on the commit that won (the conflict's answer), goes at once: that commit was
      // the head a moment ago, and waiting only gives the next writer time to move it on. A command that
      // loses again, or learned no winner, waits `backoff` first, its waits counted from the first it takes.
      const atOnce = attempt === 0 && appended.winner?.[0]?.version === version + 1;
      if (!atOnce) await sleep(Math.min(backoffDelay(waits++, retry.backoff), retry.maxElapsedMs - elapsed), options.signal);
      const next = await afterLostRace(stream, streamId, decider, options, { state, version }, appended.winner, attempt);
      // Folded on from the winner without a load: it saves the snapshot a load would have saved.
      snapshotAt = 'snapshotAt' in next ? next.snapshotAt : await snapshotIfDue(stream, streamId, next, snapshotAt, options);
      loaded = next;
      continue;
    }
    const inline = appended.inline === undefined ? {} : { inline: appended.inline };
    const first = appended.events[0]?.version;
    if (first !== version + 1) {
      // An earlier append with this idempotency key answered: its events may already be in `state`, and
      // other events may follow them, so fold the stream again instead of adding them to `state`.
      const current = await loadState(stream, streamId, decider, options);
      return { ...current, events: appended.events, ...inline };
    }
    let next = state;
    for (const event of appended.events) next = decider.evolve(next, event);
    return { state: next, version: appended.version, events: appended.events, ...inline };
  }
}

/**
 * The state to decide on again after a lost race. The winning commit exists (DynamoDB answered it), so
 * the first time the command decides on the state its events lead to with no read. A command that lost
 * again is on a stream whose head moves faster than one commit a try: it also reads the events after the
 * winner (strongly consistent), or it would trail the head for ever. Without the winner, it loads again.
 */
async function afterLostRace<State>(
  stream: StreamDefinition,
  streamId: string,
  decider: Decider<State, StreamEvent, unknown>,
  options: CommandOptions<State>,
  lost: Loaded<State>,
  winner: ReadonlyArray<StreamEvent> | undefined,
  attempt: number,
): Promise<Loaded<State> | (Loaded<State> & { readonly snapshotAt: number })> {
  const last = winner?.at(-1);
  if (winner?.[0]?.version !== lost.version + 1 || last === undefined) return loadAndSnapshot(stream, streamId, decider, options);
  const withWinner = { state: winner.reduce(foldingEvolve(stream, decider.evolve), lost.state), version: last.version };
  if (attempt === 0) return withWinner;
  const folded = await foldAfter(stream, streamId, foldingEvolve(stream, decider.evolve), withWinner, true, options.signal);
  return folded === 'gap' ? loadAndSnapshot(stream, streamId, decider, options) : folded;
}
