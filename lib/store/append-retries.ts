import { AppendContentionError } from '../errors';
import { backoffDelay, mayRetry, sleep, type ResolvedRetry } from '../util';

/** How one try of an append ended; `taken` says the version it wanted exists (its Put's condition failed). */
export type AttemptOutcome<Result> =
  | { readonly kind: 'appended'; readonly result: Result }
  | { readonly kind: 'conflict'; readonly taken: boolean; readonly winner: Record<string, unknown> | undefined }
  | { readonly kind: 'contended' };

/**
 * Where an append goes. `head`: at the version read from the table, again after a conflict. `expected`: at
 * the caller's version; a conflict ends it. `loaded`: at the version `execute` read; a conflict ends it.
 */
export type AppendMode = 'head' | 'expected' | 'loaded';

/** An append that found its version taken; `winner` is the item that took it, when DynamoDB returned it. */
export interface LostAppend {
  readonly winner: Record<string, unknown> | undefined;
}

/** One append's tries and what they need of the stream. */
export interface AppendTries<Result> {
  readonly streamName: string;
  readonly streamId: string;
  readonly mode: AppendMode;
  /** The caller's, or `execute`'s load's; unused at the head. */
  readonly expectedVersion: number | undefined;
  readonly retry: ResolvedRetry;
  readonly signal: AbortSignal | undefined;
  readHead(): Promise<number>;
  /** Whether `version` exists (a read that can't miss it): proves a caller's `expectedVersion` before writing. */
  versionExists(version: number): Promise<boolean>;
  /** One try at `expectedVersion`, a version known to exist (or 0): its writes need only not overwrite. */
  attempt(expectedVersion: number): Promise<AttemptOutcome<Result>>;
}

/**
 * Tries an append until it lands, loses (not at the head) or runs out of tries (`AppendContentionError`).
 * DynamoDB cancelling a transaction for a concurrent one is tried again in every mode.
 */
export async function appendWithRetries<Result>(tries: AppendTries<Result>): Promise<Result | LostAppend> {
  const { mode, retry, signal } = tries;
  const started = Date.now();
  // Every try goes at a version known to exist, so its writes need no ConditionCheck: the Puts'
  // `attribute_not_exists` alone keep versions contiguous (when n exists, 1..n are committed). A version
  // read from the table (the head, `execute`'s load, or taken by the append that beat this one) exists and
  // stays: events are never deleted. A caller's `expectedVersion` is no proof, so it is read once (half a read
  // unit when an eventually consistent read finds it, where a ConditionCheck bills two write units, and a
  // one-event append can be a PutItem).
  let known = mode === 'head' ? undefined : tries.expectedVersion;
  let proven = mode !== 'expected' || tries.expectedVersion === 0;
  for (let attempt = 1; ; attempt++) {
    const expectedVersion = known ?? (await tries.readHead());
    if (!proven) {
      if (!(await tries.versionExists(expectedVersion))) return { winner: undefined };
      proven = true;
    }
    const outcome = await tries.attempt(expectedVersion);
    if (outcome.kind === 'appended') return outcome.result;
    if (outcome.kind === 'conflict') {
      // A stale `expectedVersion` is the caller's (or the command's) to resolve: retrying would not change the answer.
      if (mode !== 'head') return { winner: outcome.winner };
      // The version this append wanted is taken: the first time, the next one follows it with no read of
      // the head. Lost again, the head moves faster than a version a try: read it, or trail it for ever.
      known = outcome.taken && attempt === 1 ? expectedVersion + 1 : undefined;
    } else if (mode === 'head') {
      known = undefined;
    }
    const elapsed = Date.now() - started;
    if (!mayRetry(retry, attempt, elapsed)) throw new AppendContentionError(tries.streamName, tries.streamId, attempt, elapsed);
    await sleep(Math.min(backoffDelay(attempt - 1, retry.backoff), retry.maxElapsedMs - elapsed), signal);
  }
}
