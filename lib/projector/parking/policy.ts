import { DynafoldError, isTransient } from '../../errors';
import type { Logger } from '../../util';
import type { RowRuntime } from '../engine';

/** What parking asks of a projection besides its rows: when a row is parked, and whom to tell. */
export interface ParkingPolicy {
  /** Park a row after this many failed attempts that are not transient; `undefined` retries for ever. */
  readonly poison: { readonly afterAttempts: number } | undefined;
  readonly logger: Logger | undefined;
}

/** A projection's rows and its parking policy: what a replay runs on. */
export type ParkingRuntime<State> = RowRuntime<State> & ParkingPolicy;

/**
 * Whether a row's failure counts towards parking it. Transient failures (`isTransient`: throttling, server
 * errors, timeouts, lost races, an event stored at a type version newer than this code knows during a
 * rolling deploy) never do, whichever path met them (the fold, a gap read, a backfill, a replay): they pass
 * by themselves. Nor does a missing or refused table: that is the deployment's fault, not the row's, and
 * parking would set aside every row until it is fixed.
 */
export function countsTowardsParking(error: unknown): boolean {
  if (DynafoldError.is(error, 'dynamo.tableNotFound') || DynafoldError.is(error, 'dynamo.accessDenied')) return false;
  return !isTransient(error);
}
