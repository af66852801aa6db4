import { AppendContentionError } from '../../errors';
import { backoffDelay, mayRetry, sleep, type ResolvedRetry } from '../../util';

/**
 * How one try of an append ended. A conflict means the version it wanted is taken (a Put's condition
 * failed): `winner` is the commit that took it, when DynamoDB returned it, and `winnerEnd` its last version.
 */
export type AttemptOutcome<Result> =
  | { readonly kind: 'appended'; readonly result: Result }
  | { readonly kind: 'conflict'; readonly winner: Record<string, unknown> | undefined; readonly winnerEnd: number | undefined }
  | { readonly kind: 'contended' };

/**
 * Where an append goes. `head`: at the version read from the table, again after a conflict. `expected`: at
 * the caller's version; a conflict ends it. `loaded`: at the version `execute` read; a conflict ends it.
 */
export type AppendMode = 'head' | 'expected' | 'loaded';

/** An append that found its version taken; `winner` is the commit that took it, when DynamoDB returned it. */
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
  /** Whether a commit ends at `version` (known, or read so as not to miss it): proves a caller's `expectedVersion` before writing. */
  endsCommit(version: number): Promise<boolean>;
  /** One try at `expectedVersion`, a version known to end a commit (or 0): its writes need only not overwrite. */
  attempt(expectedVersion: number): Promise<AttemptOutcome<Result>>;
}

/**
 * Tries an append until it lands, loses (not at the head) or runs out of tries (`AppendContentionError`).
 * DynamoDB cancelling a transaction for a concurrent one is tried again in every mode.
 */
export async function appendWithRetries<Result>(tries: AppendTries<Result>): Promise<Result | LostAppend> {
  const { mode, retry, signal } = tries;
  const started = Date.now();
  // Why versions stay contiguous. Commits tile a stream from version 1, with neither gap nor overlap, and
  // are never changed or deleted. Every try writes its first commit at the version after one known to END
  // a commit (or at 1), keyed by that first version and conditioned on the key not existing. It can't
  // leave a gap: its predecessor ends a commit that exists. It can't overlap: a commit that held the
  // version after it would start there, the tiling being contiguous, so the Put's condition fails; and no
  // commit can start inside the new one, since that would need a commit ending inside it, which would have
  // to start at its first version too. Two writers at one head thus collide on one key, and one wins.
  // A version read from the table ends a commit: the head, `execute`'s load, the end of the commit that
  // beat this try. A caller's `expectedVersion` is no proof unless the stream saw a commit end there (its
  // own last append, a load: `KnownCommitEnds`); otherwise it is read once (`endsCommit`: half a read unit
  // when an eventually consistent read finds the commit holding it, where a ConditionCheck bills two write
  // units, and the append can stay one PutItem).
  let known = mode === 'head' ? undefined : tries.expectedVersion;
  let proven = mode !== 'expected' || tries.expectedVersion === 0;
  for (let attempt = 1; ; attempt++) {
    const expectedVersion = known ?? (await tries.readHead());
    if (!proven) {
      if (!(await tries.endsCommit(expectedVersion))) return { winner: undefined };
      proven = true;
    }
    const outcome = await tries.attempt(expectedVersion);
    if (outcome.kind === 'appended') return outcome.result;
    if (outcome.kind === 'conflict') {
      // A stale `expectedVersion` is the caller's (or the command's) to resolve: retrying would not change the answer.
      if (mode !== 'head') return { winner: outcome.winner };
      // The version this append wanted is taken: the first time, the next try follows the commit that
      // took it with no read of the head. Lost again, the head moves faster than a commit a try: read it,
      // or trail it for ever.
      known = attempt === 1 ? outcome.winnerEnd : undefined;
    } else if (mode === 'head') {
      known = undefined;
    }
    const elapsed = Date.now() - started;
    if (!mayRetry(retry, attempt, elapsed)) throw new AppendContentionError(tries.streamName, tries.streamId, attempt, elapsed);
    await sleep(Math.min(backoffDelay(attempt - 1, retry.backoff), retry.maxElapsedMs - elapsed), signal);
  }
}
