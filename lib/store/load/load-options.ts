/** A decider: a fold over the stream plus the decision that turns a state into new events. */
export interface Decider<State, Event, NewEvent> {
  /** The state before the first event (a value, or a function for a fresh one each time). */
  readonly initial: State | (() => State);
  readonly evolve: (state: State, event: Event) => State;
  /** The events a command produces from the current state; `[]` appends nothing. May throw a domain error. */
  readonly decide?: ((state: State, version: number) => ReadonlyArray<NewEvent> | Promise<ReadonlyArray<NewEvent>>) | undefined;
}

/** Options of `load`. */
export interface LoadOptions<State = unknown> {
  /**
   * Start from the latest snapshot of this name and save a new one every `every` events folded past it: by a
   * load, and by a command that folds a winner's events without a load after a lost race.
   */
  readonly snapshot?: SnapshotOptions<State> | undefined;
  /** Cancels the call: every request is aborted and it rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Whether the load reads strongly consistent. An eventually consistent load costs half the read units and
   * may miss the latest events (it reflects the stream as it was a moment ago); one whose versions are not
   * contiguous is read again strongly consistent.
   * @defaultValue true
   */
  readonly consistent?: boolean | undefined;
}

/** Where a load starts from and how often it saves a snapshot. @inline */
export interface SnapshotOptions<State> {
  /** @defaultValue `'default'` (`DEFAULT_SNAPSHOT_NAME`) */
  readonly name?: string | undefined;
  /**
   * Save a snapshot when a load (or a command deciding again after a lost race, which folds on without one)
   * folded at least this many events past the snapshot it started from. @defaultValue never
   */
  readonly every?: number | undefined;
  /**
   * The version of the state's shape, stored with each snapshot: bump it when the fold's state changes,
   * and a snapshot of another version is ignored (the load folds from the events and saves anew), unless
   * `upcast` turns an older one into today's state. A snapshot is never replaced by one of an older version.
   * @defaultValue 1 (snapshots saved before they had versions are version 1)
   */
  readonly version?: number | undefined;
  /** Turns the state of a snapshot of an older version (`storedVersion`) into today's. @defaultValue none: it is ignored */
  readonly upcast?: ((state: unknown, storedVersion: number) => State) | undefined;
}

/** A folded state and the version it reflects. */
export interface Loaded<State> {
  readonly state: State;
  readonly version: number;
}
