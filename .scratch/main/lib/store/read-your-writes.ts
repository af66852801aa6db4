import { ValidationError } from '../errors';
import type { StreamEvent } from './types';

/** A row as a read-your-writes wait found it. */
export interface ProjectedRow<Row = Record<string, unknown>> {
  /** The row's key fields. */
  readonly key: Readonly<Record<string, unknown>>;
  /** The row as `ReadModel.get` returns it; `undefined` when the row does not exist (never written, removed, or a stub). */
  readonly row: Row | undefined;
  /** Whether the row reflects the version waited for; `false` only after a timeout with `onTimeout: 'stale'`. */
  readonly fresh: boolean;
  /** The version of the source instance the row reflects; `undefined` when the row records none. */
  readonly version: number | undefined;
}

/** How long a read-your-writes wait lasts and what it does when the time is up. */
export interface WaitTiming {
  /** @defaultValue 5000 (`ProjectionDefaults.readYourWrites.timeoutMs`) */
  readonly timeoutMs?: number | undefined;
  /** `'throw'` fails with `ReadYourWritesTimeoutError`; `'stale'` answers the row as it is, `fresh: false`. @defaultValue 'throw' */
  readonly onTimeout?: 'throw' | 'stale' | undefined;
  /** Stops waiting (rejects with the abort reason). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * What an append or a command can wait for after its write: a `Projection` or `MultiSourceProjection`.
 * Kept structural here so that the store never imports the projector.
 */
export interface ProjectionWaiter {
  readonly name: string;
  /** Waits until every row the events address reflects them. */
  waitForEvents(events: ReadonlyArray<StreamEvent>, options?: WaitTiming): Promise<ReadonlyArray<ProjectedRow>>;
}

/**
 * The `waitFor` option of `append` and `execute`: the projections whose rows must reflect the write
 * before the call resolves, alone or with how long to wait.
 */
export type WaitForProjections = ReadonlyArray<ProjectionWaiter> | (WaitTiming & { readonly projections: ReadonlyArray<ProjectionWaiter> });

/** The rows each projection answered, by projection name. */
export type ProjectedRows = Readonly<Record<string, ReadonlyArray<ProjectedRow>>>;

/**
 * Waits for each projection of `waitFor` (at once) to reflect `events`, and resolves their rows by
 * projection name. A projection that fails or times out (with `onTimeout: 'throw'`) rejects the wait;
 * `signal` (the append's or command's) stops it.
 */
export async function waitForProjections(
  events: ReadonlyArray<StreamEvent>,
  waitFor: WaitForProjections,
  signal?: AbortSignal,
): Promise<ProjectedRows> {
  const { projections, ...timing } = Array.isArray(waitFor)
    ? { projections: waitFor as ReadonlyArray<ProjectionWaiter> }
    : (waitFor as Exclude<WaitForProjections, readonly unknown[]>);
  if (!Array.isArray(projections) || projections.some((projection) => typeof projection?.waitForEvents !== 'function')) {
    throw new ValidationError('Expected `waitFor` to list projections (or to be { projections, timeoutMs?, onTimeout? }).', [
      { path: ['waitFor'], message: 'not a list of projections' },
    ]);
  }
  // The call's own signal stops the wait too, unless `waitFor` brings one.
  const options = signal === undefined || timing.signal !== undefined ? timing : { ...timing, signal };
  const rows = await Promise.all(projections.map((projection) => projection.waitForEvents(events, options)));
  return Object.fromEntries(projections.map((projection, index) => [projection.name, rows[index] ?? []]));
}
