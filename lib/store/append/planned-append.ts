import { currentTraceContext } from '../../telemetry';
import type { TransactPut } from '../inline';
import { definitionOf, type StreamDefinition } from '../stream-definition';
import type { StreamEvent } from '../types';
import { validateAppend } from './append';
import { writtenOf } from './append-tries';
import { planCommits } from './plan-commits';
import { sealPersonalData } from './seal-personal';

/** What an append planned and not sent writes (see {@link planAppend}). */
export interface PlannedAppend {
  /** The Puts of its commits, each conditioned on its key not existing. */
  readonly puts: ReadonlyArray<TransactPut>;
  /** The events as the commits store them, as a read would return them. */
  readonly events: ReadonlyArray<StreamEvent>;
  /** The stream's version once they are written. */
  readonly version: number;
}

/** Where a planned append goes and what goes with it. */
export interface AppendPlanning {
  /** The version the events go after: one that ends a commit (a load's, the head's), or 0. */
  readonly expectedVersion: number;
  /** Stored on every event (an event's own metadata wins per key). */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * An append planned as every append is (its events validated, their personal fields sealed, cut into
 * commits stamped with one append id and the active span's trace context), and not sent: its commits'
 * Puts go into a transaction of the caller's, which writes them all or none. The Puts are conditioned on
 * their keys not existing, so the transaction fails, writing nothing, once another append took the version
 * after `expectedVersion`; a caller that decided on the stream's state plans again from a new load.
 * Invalid events are a `ValidationError`; events too large for a transaction a `TransactionLimitError`.
 */
export async function planAppend(
  stream: StreamDefinition,
  streamId: string,
  events: ReadonlyArray<unknown>,
  planning: AppendPlanning,
): Promise<PlannedAppend> {
  const { expectedVersion, signal } = planning;
  const valid = validateAppend(stream, events, { expectedVersion, ...(planning.metadata === undefined ? {} : { metadata: planning.metadata }) });
  const sealedAt = await sealPersonalData(stream.codec, stream.streamIdFields, streamId, valid, signal);
  const sealed = sealedAt(expectedVersion + 1);
  const trace = stream.storesTraceContext ? currentTraceContext() : undefined;
  const commits = planCommits(stream.codec, {
    table: stream.table,
    streamId,
    expectedVersion,
    events: sealed,
    appendedAt: Date.now(),
    itemPerEvent: stream.itemPerEvent,
    appendId: stream.commits.newAppendId(),
    ...(trace === undefined ? {} : { trace }),
  });
  return { puts: stream.commits.commitPuts(commits), events: writtenOf(stream, commits, sealed), version: expectedVersion + sealed.length };
}

/** {@link planAppend} on an `EventStream`: for the package's other modules (a reaction plans its effects' appends). */
export function planAppendTo(stream: object, streamId: string, events: ReadonlyArray<unknown>, planning: AppendPlanning): Promise<PlannedAppend> {
  return planAppend(definitionOf(stream), streamId, events, planning);
}
