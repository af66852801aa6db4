import { DynafoldError, isTransient } from '../../../errors';
import type { StreamEvent } from '../../../store';
import type { EventRef } from '../../outcome';

/**
 * What a projection does with a row whose events keep failing: `'retry'` fails its records on every
 * delivery (the source holds the shard); `park` sets the row aside after `afterAttempts` failed attempts,
 * so the shard moves on, until `retryParked` or `skipParked`.
 */
export type PoisonPolicy = 'retry' | { readonly park: { readonly afterAttempts: number } };

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

/** The identity of an event, as parked rows and skipped events record it. */
export function eventRef(event: StreamEvent): EventRef {
  return { streamName: event.streamName, streamId: event.streamId, version: event.version, type: event.type };
}

export function errorOf(error: unknown): { name: string; message: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
}
