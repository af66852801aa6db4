import { ValidationError } from '../../errors';
import type { Decider, LoadOptions, Loaded, SnapshotOptions } from './load-options';
import type { SnapshotPage } from '../commits';
import { EventStreamDefaults } from '../defaults';
import { saveSnapshot, snapshotPage } from '../snapshots';
import type { StreamDefinition } from '../stream-definition';
import type { Snapshot, StreamEvent } from '../types';
import { TrailCollector, type Trail } from '../../personal';

function initialState<State>(initial: State | (() => State)): State {
  return typeof initial === 'function' ? (initial as () => State)() : initial;
}

/** `consistent` as given, else `fallback`; anything but a boolean is a `ValidationError`. */
export function readConsistency(consistent: unknown, fallback: boolean): boolean {
  const value = consistent ?? fallback;
  if (typeof value !== 'boolean') {
    throw new ValidationError(`Expected \`consistent\` to be a boolean, got ${JSON.stringify(value)}.`, [
      { path: ['consistent'], message: 'not a boolean' },
    ]);
  }
  return value;
}

/**
 * A stream instance's state: from its snapshot (when `snapshot` is given and one of a usable state version
 * is stored) plus the events after it, read with the snapshot in one Query where they fit (see
 * `CommitLog.snapshotPage`), and a new snapshot saved once `snapshot.every` events were folded past it.
 */
export async function loadState<State, Event extends StreamEvent>(
  stream: StreamDefinition,
  streamId: string,
  fold: Pick<Decider<State, Event, unknown>, 'initial' | 'evolve'>,
  options: LoadOptions<State>,
  consistent = true,
): Promise<Loaded<State>> {
  const { state, version } = await loadAndSnapshot(stream, streamId, fold, options, consistent);
  return { state, version };
}

/** A load as `loadState`'s, also naming the version of the snapshot the state now stands on (0 for none). */
export async function loadAndSnapshot<State, Event extends StreamEvent>(
  stream: StreamDefinition,
  streamId: string,
  fold: Pick<Decider<State, Event, unknown>, 'initial' | 'evolve'>,
  options: LoadOptions<State>,
  consistent = true,
): Promise<Loaded<State> & { readonly snapshotAt: number }> {
  const { signal } = options;
  const stateVersion = snapshotStateVersion(options.snapshot);
  const page =
    options.snapshot === undefined
      ? undefined
      : ((await snapshotPage(stream, streamId, options.snapshot.name, {
          readAhead: snapshotReadAhead(options.snapshot),
          consistent,
          signal,
        })) as SnapshotPage<Event>);
  const stored = page?.snapshot;
  const snapshot = stored === undefined ? undefined : usableSnapshot(stored, stateVersion, options.snapshot?.upcast);
  const fromSnapshot = snapshot?.version ?? 0;
  const start = { state: snapshot === undefined ? initialState(fold.initial) : snapshot.state, version: fromSnapshot };
  // With snapshots, whose personal data the state takes in: a snapshot of it is sealed for them.
  const trail = options.snapshot === undefined ? undefined : new TrailCollector(snapshot === undefined ? undefined : stored);
  const evolve = foldingEvolve(stream, trail === undefined ? fold.evolve : trail.watching(fold.evolve));
  const folded = await foldAfter(stream, streamId, evolve, start, consistent, signal, page);
  // Appends keep versions contiguous; an eventually consistent read that saw otherwise is folded again, strongly.
  if (folded === 'gap') return loadAndSnapshot(stream, streamId, fold, options, true);
  // A snapshot sealed for a forgotten subject is replaced at its version, else every load would fold from version 1.
  const snapshotAt = await snapshotIfDue(stream, streamId, folded, fromSnapshot, options, trail?.trail, page?.forgottenSnapshot === true);
  return { ...folded, snapshotAt };
}

/**
 * Saves a snapshot of `folded` when it is `snapshot.every` events or more past the snapshot it stands on
 * (`snapshotAt`); resolves the version of the snapshot it stands on now. A load does it, and so does a
 * command that folded a winner's events without a load after a lost race. `trail`: the subjects whose
 * personal data the state holds, when the caller gathered them (else the stream finds them).
 * `replacesForgotten`: the snapshot stored is sealed for a forgotten subject (see `SnapshotSave`).
 */
export async function snapshotIfDue<State>(
  stream: StreamDefinition,
  streamId: string,
  folded: Loaded<State>,
  snapshotAt: number,
  options: LoadOptions<State>,
  trail?: Trail,
  replacesForgotten = false,
): Promise<number> {
  const every = options.snapshot?.every;
  if (every === undefined || folded.version - snapshotAt < every) return snapshotAt;
  const stateVersion = snapshotStateVersion(options.snapshot);
  await saveSnapshot(stream, streamId, { version: folded.version, state: folded.state, stateVersion }, options.snapshot?.name, {
    signal: options.signal,
    trail,
    replacesForgotten,
  });
  return folded.version;
}

function snapshotStateVersion(options: SnapshotOptions<unknown> | undefined): number {
  const version = options?.version ?? 1;
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new ValidationError(`Expected \`snapshot.version\` to be an integer ≥ 1, got ${String(version)}.`, [
      { path: ['snapshot', 'version'], message: 'not an integer ≥ 1' },
    ]);
  }
  if (options?.upcast !== undefined && typeof options.upcast !== 'function') {
    throw new ValidationError('Expected `snapshot.upcast` to be a function.', [{ path: ['snapshot', 'upcast'], message: 'not a function' }]);
  }
  return version;
}

/**
 * How many commits a load's first Query reads at most with the snapshot: up to a snapshot interval (a load
 * that folds `every` events saves a new one, and each commit holds one or more) or
 * `EventStreamDefaults.snapshotReadAhead` (see `SnapshotReadAhead` for how many it reads).
 */
function snapshotReadAhead(options: SnapshotOptions<unknown>): number {
  const { every } = options;
  if (every !== undefined && (!Number.isSafeInteger(every) || every < 1)) {
    throw new ValidationError(`Expected \`snapshot.every\` to be an integer ≥ 1, got ${String(every)}.`, [
      { path: ['snapshot', 'every'], message: 'not an integer ≥ 1' },
    ]);
  }
  return Math.min(every ?? EventStreamDefaults.snapshotReadAhead, EventStreamDefaults.snapshotReadAhead);
}

/** A snapshot of today's state version as it is, one of an older version upcast when there is a function for it, else none. */
function usableSnapshot<State>(
  stored: Snapshot<unknown>,
  stateVersion: number,
  upcast: SnapshotOptions<State>['upcast'],
): { version: number; state: State } | undefined {
  const storedVersion = stored.stateVersion ?? 1;
  if (storedVersion === stateVersion) return { version: stored.version, state: stored.state as State };
  if (storedVersion < stateVersion && upcast !== undefined) return { version: stored.version, state: upcast(stored.state, storedVersion) };
  return undefined;
}

/** The fold's `evolve`, passing over the events folds skip (of types retired with `skip`). */
export function foldingEvolve<State, Event extends StreamEvent>(
  stream: Pick<StreamDefinition, 'skipsInFolds'>,
  evolve: (state: State, event: Event) => State,
): (state: State, event: Event) => State {
  const skips = stream.skipsInFolds;
  return skips === undefined ? evolve : (state, event) => (skips(event) ? state : evolve(state, event));
}

/**
 * Folds the events after `start` into its state; `'gap'` when an eventually consistent read's versions
 * are not contiguous. With a snapshot page, its newest events are folded last, after reading those
 * between `start` and them when the page did not reach that far.
 */
export async function foldAfter<State, Event extends StreamEvent>(
  stream: StreamDefinition,
  streamId: string,
  evolve: (state: State, event: Event) => State,
  start: Loaded<State>,
  consistent: boolean,
  signal: AbortSignal | undefined,
  page?: SnapshotPage<Event>,
): Promise<Loaded<State> | 'gap'> {
  let { state, version } = start;
  // A page of events at a time (see `CommitLog.eventPages`), folded without awaiting each.
  for await (const events of eventPagesAfter(stream, streamId, version, { consistent, signal }, page)) {
    for (const event of events) {
      if (!consistent && event.version !== version + 1) return 'gap';
      state = evolve(state, event);
      version = event.version;
    }
  }
  return { state, version };
}

/**
 * The events after version `after`, a page at a time: from the snapshot page where it reaches back far
 * enough, else read ascending first. Without a page, `after` is 0 or the end of a commit (a winner's), so
 * the read needs not look for a commit holding `after + 1` that starts before it; a snapshot's version may
 * be any.
 */
async function* eventPagesAfter<Event extends StreamEvent>(
  stream: StreamDefinition,
  streamId: string,
  after: number,
  reading: { consistent: boolean; signal: AbortSignal | undefined },
  page: SnapshotPage<Event> | undefined,
): AsyncGenerator<ReadonlyArray<Event>> {
  const paging = { pageSize: EventStreamDefaults.readPageSize, consistent: reading.consistent, signal: reading.signal };
  if (page === undefined) {
    yield* stream.commits.eventPages(streamId, { fromVersion: after + 1 }, { ...paging, afterCommitEnd: true }) as AsyncGenerator<Event[]>;
    return;
  }
  if (page.from > after + 1) {
    yield* stream.commits.eventPages(
      streamId,
      { fromVersion: after + 1, toVersion: page.from - 1 },
      { ...paging, afterCommitEnd: false },
    ) as AsyncGenerator<Event[]>;
  }
  yield page.newest.filter((event) => event.version > after);
}
