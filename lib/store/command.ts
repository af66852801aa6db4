import { ConcurrencyError } from '../errors';
import { backoffDelay } from '../util/backoff';
import { sleep } from '../util/sleep';
import { EventStreamDefaults } from './defaults';
import type { AppendResult } from './event-stream';
import type { Snapshot } from './snapshots';
import type { StreamEvent } from './types';

/** A decider: a fold over the stream plus the decision that turns a state into new events. */
export interface Decider<State, Event, NewEvent> {
  /** The state before the first event (a value, or a function for a fresh one each time). */
  readonly initial: State | (() => State);
  readonly evolve: (state: State, event: Event) => State;
  /** The events a command produces from the current state; `[]` appends nothing. May throw a domain error. */
  readonly decide?: (state: State, version: number) => ReadonlyArray<NewEvent> | Promise<ReadonlyArray<NewEvent>>;
}

/** Options of `load`. */
export interface LoadOptions {
  /** Start from the latest snapshot of this name and save a new one every `every` events folded past it. */
  readonly snapshot?: { readonly name?: string; readonly every?: number };
}

/** A folded state and the version it reflects. */
export interface Loaded<State> {
  readonly state: State;
  readonly version: number;
}

/** Options of `execute`. */
export interface CommandOptions extends LoadOptions {
  /** Attempts before a `ConcurrencyError` is passed on. @defaultValue 10 */
  readonly attempts?: number;
  readonly idempotencyKey?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** What a command did: the appended events (maybe none), the resulting version and state. */
export interface CommandResult<State, Event> extends Loaded<State> {
  readonly events: ReadonlyArray<Event>;
}

/** What the command helper needs of a stream (kept narrow so it is easy to test and reason about). */
interface CommandTarget<Event, NewEvent> {
  iterate(id: string, range: { fromVersion?: number }): AsyncIterable<Event>;
  append(id: string, events: ReadonlyArray<NewEvent>, options: { expectedVersion: number; idempotencyKey?: string; metadata?: Readonly<Record<string, unknown>> }): Promise<AppendResult<Event>>;
  loadSnapshot<State>(id: string, name?: string): Promise<Snapshot<State> | undefined>;
  saveSnapshot<State>(id: string, snapshot: Snapshot<State>, name?: string): Promise<boolean>;
}

function initialState<State>(initial: State | (() => State)): State {
  return typeof initial === 'function' ? (initial as () => State)() : initial;
}

export async function loadState<State, Event extends StreamEvent, NewEvent>(
  stream: CommandTarget<Event, NewEvent>,
  streamId: string,
  fold: Pick<Decider<State, Event, NewEvent>, 'initial' | 'evolve'>,
  options: LoadOptions,
): Promise<Loaded<State>> {
  const snapshot = options.snapshot === undefined ? undefined : await stream.loadSnapshot<State>(streamId, options.snapshot.name);
  let state = snapshot?.state ?? initialState(fold.initial);
  const fromSnapshot = snapshot?.version ?? 0;
  let version = fromSnapshot;
  for await (const event of stream.iterate(streamId, { fromVersion: version + 1 })) {
    state = fold.evolve(state, event);
    version = event.version;
  }
  const every = options.snapshot?.every;
  if (every !== undefined && version - fromSnapshot >= every) {
    await stream.saveSnapshot(streamId, { version, state }, options.snapshot?.name);
  }
  return { state, version };
}

export async function executeCommand<State, Event extends StreamEvent, NewEvent>(
  stream: CommandTarget<Event, NewEvent>,
  streamId: string,
  decider: Decider<State, Event, NewEvent>,
  options: CommandOptions,
): Promise<CommandResult<State, Event>> {
  const attempts = options.attempts ?? EventStreamDefaults.commandAttempts;
  for (let attempt = 0; ; attempt++) {
    const { state, version } = await loadState(stream, streamId, decider, options);
    const decided = (await decider.decide?.(state, version)) ?? [];
    if (decided.length === 0) return { state, version, events: [] };
    try {
      const appended = await stream.append(streamId, decided, {
        expectedVersion: version,
        ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
        ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
      });
      const first = appended.events[0]?.version;
      if (first !== version + 1) {
        // An earlier append with this idempotency key answered: its events may already be in `state`, and
        // other events may follow them, so fold the stream again instead of adding them to `state`.
        const current = await loadState(stream, streamId, decider, options);
        return { ...current, events: appended.events };
      }
      let next = state;
      for (const event of appended.events) next = decider.evolve(next, event);
      return { state: next, version: appended.version, events: appended.events };
    } catch (error) {
      if (!(error instanceof ConcurrencyError) || attempt + 1 >= attempts) throw error;
      await sleep(backoffDelay(attempt, EventStreamDefaults.appendBackoff));
    }
  }
}
