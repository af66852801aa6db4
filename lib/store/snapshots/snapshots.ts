import { TrailCollector, type Trail } from '../../personal';
import { SnapshotAttributes, toSnapshotItem } from '../codec';
import type { SnapshotPage } from '../commits';
import { Layout, snapshotSortKey } from '../layout';
import { readEvents } from '../read';
import type { StreamDefinition } from '../stream-definition';
import type { Snapshot } from '../types';

/** Snapshots are kept per name, so two folds over one stream keep their own. */
export const DEFAULT_SNAPSHOT_NAME = 'default';

/** How a snapshot is saved, beside what it holds. */
export interface SnapshotSave {
  readonly signal?: AbortSignal | undefined;
  /** The subjects whose personal data the state holds, as a load gathered them (else the events up to its version are read to find them). */
  readonly trail?: Trail | undefined;
  /**
   * The snapshot stored under the name was sealed for a subject since forgotten (a load found it so):
   * one of the same stream and state versions that is sealed may be replaced too, by this one (its
   * redacted state), so that the next load starts from a snapshot again.
   */
  readonly replacesForgotten?: boolean | undefined;
}

/** Where today's snapshot of `name` is stored, and where 0.2 stored it. */
const today = (name: string) => ({ name, sortKey: snapshotSortKey(name) });
const of02 = (name: string) => ({ name, sortKey: Layout.legacySnapshotPrefix + name });

/**
 * Saves a snapshot unless one at the same or a newer version exists: snapshots only move forward, so a
 * slow writer can't replace a newer snapshot with an older one. Resolves `true` when it was written,
 * including by a try whose answer was lost (the SDK's retry then meets the item it wrote). On a stream
 * with personal data, the state is sealed for every subject whose data the events up to its version hold
 * in the clear: a load that saves one knows them, else the events are read to find them.
 */
export async function saveSnapshot(
  stream: StreamDefinition,
  streamId: string,
  snapshot: Snapshot<unknown>,
  name = DEFAULT_SNAPSHOT_NAME,
  save: SnapshotSave = {},
): Promise<boolean> {
  const trail = save.trail ?? (await trailUpTo(stream, streamId, snapshot, save.signal));
  const slot = today(name);
  const item = toSnapshotItem(stream.codec, streamId, snapshot, slot, trail);
  const condition = forwardOnly(snapshot.version, snapshot.stateVersion ?? 1, save.replacesForgotten === true);
  return stream.commits.putSnapshot(streamId, item, condition, save.signal);
}

/** The subjects whose personal data the events up to the snapshot's version hold, read to find them (none on a stream without personal data). */
async function trailUpTo(stream: StreamDefinition, streamId: string, snapshot: Snapshot<unknown>, signal: AbortSignal | undefined) {
  if (stream.codec.personal === undefined || !Number.isSafeInteger(snapshot?.version) || snapshot.version <= 0) return undefined;
  const collector = new TrailCollector();
  for await (const event of readEvents(stream, streamId, { toVersion: snapshot.version, signal })) collector.add(event);
  return collector.trail;
}

/**
 * The condition that keeps snapshots moving forward: a newer state version replaces any snapshot of an
 * older one; within one state version, a later stream version replaces an earlier one; an older state
 * version (code not yet deployed everywhere) replaces nothing newer. With `replacesForgotten`, a sealed
 * snapshot of the same versions is replaced too: the caller found it sealed for a forgotten subject, so
 * it never opens again, and a state of the same versions is the same state, redacted.
 */
function forwardOnly(version: number, stateVersion: number, replacesForgotten: boolean) {
  const sameStateVersion = stateVersion === 1 ? '(attribute_not_exists(#sv) OR #sv = :sv)' : '#sv = :sv';
  const olderStateVersion = stateVersion === 1 ? '#sv < :sv' : '(attribute_not_exists(#sv) OR #sv < :sv)';
  const later = replacesForgotten ? '(#version < :version OR (#version = :version AND attribute_exists(#pd)))' : '#version < :version';
  return {
    ConditionExpression: `attribute_not_exists(#pk) OR ${olderStateVersion} OR (${sameStateVersion} AND ${later})`,
    ExpressionAttributeNames: {
      '#pk': Layout.partitionKey,
      '#version': SnapshotAttributes.version,
      '#sv': SnapshotAttributes.stateVersion,
      ...(replacesForgotten ? { '#pd': Layout.personal } : {}),
    },
    ExpressionAttributeValues: { ':version': version, ':sv': stateVersion },
  };
}

/**
 * The latest snapshot of a stream instance under `name`: at its key, else (a table written by 0.2, no
 * snapshot saved since) at the key 0.2 used. One sealed for a forgotten subject is none.
 */
export async function loadSnapshot(
  stream: StreamDefinition,
  streamId: string,
  name = DEFAULT_SNAPSHOT_NAME,
  reading: { readonly consistent: boolean; readonly signal: AbortSignal | undefined },
): Promise<Snapshot<unknown> | undefined> {
  const found = (await stream.commits.snapshot(streamId, today(name), reading)) ?? (await stream.commits.snapshot(streamId, of02(name), reading));
  return found === 'forgotten' ? undefined : found;
}

/**
 * A load's first read: the snapshot under `name` and the newest events in one Query (see
 * `CommitLog.snapshotPage`). A table written by 0.2 keeps its snapshots under the old key until a newer
 * one is saved: when the Query found none and did not reach version 1, that key is read too (folding from
 * version 1 needs no snapshot).
 */
export async function snapshotPage(
  stream: StreamDefinition,
  streamId: string,
  name: string | undefined,
  reading: { readonly readAhead: number; readonly consistent: boolean; readonly signal: AbortSignal | undefined },
): Promise<SnapshotPage> {
  const snapshotName = name ?? DEFAULT_SNAPSHOT_NAME;
  const page = await stream.commits.snapshotPage(streamId, today(snapshotName), reading);
  // A snapshot under today's key, even one sealed for a forgotten subject, is newer than one of 0.2's.
  if (page.snapshot !== undefined || page.forgottenSnapshot || page.from === 1) return page;
  const legacy = await stream.commits.snapshot(streamId, of02(snapshotName), reading);
  return legacy === undefined || legacy === 'forgotten' ? page : { ...page, snapshot: legacy };
}
