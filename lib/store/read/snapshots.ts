import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DecodeError, ValidationError } from '../../errors';
import { compress, decompress, getItem, sameItem, sendConditional } from '../../dynamo';
import { Layout, MAX_VERSION, partitionKeyOf, snapshotSortKey } from '../layout';
import { describeDataIssues, jsonIssues } from '../plain-data';
import { loadKeysOf, type EventCodec } from '../codec';
import { withTrail, type OpenedState, type SealedState, type SnapshotPlace, type Trail } from '../../personal';

/** A fold's state as of a version, saved to shorten later loads. */
export interface Snapshot<State> {
  readonly version: number;
  readonly state: State;
  /** The version of the state's shape (see `snapshot.version` of `load`). @defaultValue 1 */
  readonly stateVersion?: number | undefined;
}

/** Snapshots are kept per name, so two folds over one stream keep their own. */
export const DEFAULT_SNAPSHOT_NAME = 'default';

function snapshotKey(codec: EventCodec, streamId: string, sortKey: string): Record<string, string> {
  return { [Layout.partitionKey]: partitionKeyOf(codec.streamName, streamId), [Layout.sortKey]: sortKey };
}

/** How a snapshot is saved, beside what it holds. */
export interface SnapshotSave {
  /** The subjects whose personal data the state holds, to seal it for (none: stored in the clear). */
  readonly trail?: Trail | undefined;
  /**
   * The snapshot stored under the name was sealed for a subject since forgotten (a load found it so):
   * one of the same stream and state versions that is sealed may be replaced too, by this one (its
   * redacted state), so that the next load starts from a snapshot again.
   */
  readonly replacesForgotten?: boolean | undefined;
}

/**
 * Saves a snapshot unless one at the same or a newer version exists: snapshots only move forward, so a
 * slow writer can't replace a newer snapshot with an older one. Resolves `true` when it was written,
 * including by a try whose answer was lost (the SDK's retry then meets the item it wrote).
 * The state is stored as JSON (compressed like event data when large), so it must survive JSON.
 */
export async function saveSnapshot<State>(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
  snapshot: Snapshot<State>,
  name = DEFAULT_SNAPSHOT_NAME,
  save: SnapshotSave = {},
): Promise<boolean> {
  const { trail } = save;
  validateSnapshot(codec, streamId, snapshot);
  const stateVersion = snapshot.stateVersion ?? 1;
  const json = JSON.stringify(snapshot.state);
  const algorithm =
    codec.compression !== false && Buffer.byteLength(json) > codec.compression.thresholdBytes ? codec.compression.algorithm : undefined;
  const state = algorithm === undefined ? json : compress(json, algorithm);
  // A state that holds personal data is sealed for its subjects: it opens only while none of them is
  // forgotten, and only beside the versions it was saved with.
  const place = { partitionKey: partitionKeyOf(codec.streamName, streamId), name, version: snapshot.version, stateVersion };
  const sealed =
    trail === undefined || trail.size === 0
      ? undefined
      : sealedState(codec, trail, typeof state === 'string' ? Buffer.from(state, 'utf8') : state, place);
  const item = {
    ...snapshotKey(codec, streamId, snapshotSortKey(name)),
    [Layout.snapshotMarker]: codec.streamName,
    version: snapshot.version,
    ...(stateVersion === 1 ? {} : { [stateVersionAttribute]: stateVersion }),
    state: sealed === undefined ? state : sealed.body,
    ...(algorithm === undefined ? {} : { [Layout.encoding]: algorithm }),
    ...(sealed === undefined ? {} : { [Layout.personal]: sealed.shares }),
    timestamp: new Date().toISOString(),
  };
  const outcome = await sendConditional(
    'PutItem',
    table,
    () =>
      documents.send(
        new PutCommand({
          TableName: table,
          Item: item,
          ...forwardOnly(snapshot.version, stateVersion, save.replacesForgotten === true),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    // A retry of a Put whose answer was lost after it was applied finds the very item it wrote: it was saved.
    { isOwn: (found) => sameItem(item, found), read: () => getItem(documents, table, snapshotKey(codec, streamId, snapshotSortKey(name))) },
  );
  return outcome.kind === 'written';
}

/** A state sealed for the subjects of `trail`: only the events of a stream that declares personal data have any. */
function sealedState(codec: EventCodec, trail: Trail, state: Uint8Array, place: SnapshotPlace): SealedState {
  if (codec.personal === undefined) throw new Error(`unreachable: a state of ${codec.streamName} holds personal data the stream does not declare`);
  return codec.personal.sealState(trail, state, place);
}

/** On snapshot items: the version of the state's shape, absent for version 1 (and on those saved before it had one). */
const stateVersionAttribute = 'stateVersion';

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
      '#version': 'version',
      '#sv': stateVersionAttribute,
      ...(replacesForgotten ? { '#pd': Layout.personal } : {}),
    },
    ExpressionAttributeValues: { ':version': version, ':sv': stateVersion },
  };
}

function validateSnapshot(codec: EventCodec, streamId: string, snapshot: Snapshot<unknown>): void {
  const where = `A snapshot of ${codec.streamName} "${streamId}"`;
  const { version, state } = snapshot;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0 || version > MAX_VERSION) {
    throw new ValidationError(`${where} needs a version that is an integer from 0 to ${MAX_VERSION}, got ${String(version)}.`, [
      { path: ['version'], message: 'not a version' },
    ]);
  }
  const stateVersion = snapshot.stateVersion ?? 1;
  if (typeof stateVersion !== 'number' || !Number.isSafeInteger(stateVersion) || stateVersion < 1) {
    throw new ValidationError(`${where} needs a state version that is an integer ≥ 1, got ${String(stateVersion)}.`, [
      { path: ['stateVersion'], message: 'not an integer ≥ 1' },
    ]);
  }
  const issues = jsonIssues(state, ['state']);
  if (issues.length > 0)
    throw new ValidationError(`${where} can't be stored: ${describeDataIssues(issues)}. A snapshot's state must be plain JSON.`, issues);
}

/**
 * The latest snapshot of a stream instance under `name`, read strongly consistent unless `consistent` is
 * false: at its key, else (a table written by 0.2, no snapshot saved since) at the key 0.2 used.
 */
export async function loadSnapshot<State>(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
  name = DEFAULT_SNAPSHOT_NAME,
  consistent = true,
): Promise<Snapshot<State> | undefined> {
  const item = await getItem(documents, table, snapshotKey(codec, streamId, snapshotSortKey(name)), consistent);
  if (item === undefined) return loadLegacySnapshot<State>(documents, table, codec, streamId, name, consistent);
  await loadKeysOf(codec.personal, [item]);
  return decodeSnapshot<State>(codec, streamId, name, item);
}

/**
 * A snapshot saved by 0.2 under `snapshot#<name>`. Snapshots are saved under today's key only (the old
 * item stays, unread once a new one exists), so this is read only while a stream has no newer snapshot.
 */
export async function loadLegacySnapshot<State>(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
  name: string,
  consistent: boolean,
): Promise<Snapshot<State> | undefined> {
  const item = await getItem(documents, table, snapshotKey(codec, streamId, Layout.legacySnapshotPrefix + name), consistent);
  return item === undefined ? undefined : decodeSnapshot<State>(codec, streamId, name, item);
}

/**
 * A stored snapshot item's snapshot; a broken one is a {@link DecodeError} saying to delete it. A snapshot
 * sealed for subjects opens with the keys loaded for them (see `loadKeysOf`), and is `undefined` once one
 * of them is forgotten: the load folds from the events, which read redacted.
 */
export function decodeSnapshot<State>(
  codec: EventCodec,
  streamId: string,
  name: string,
  item: Readonly<Record<string, unknown>>,
): Snapshot<State> | undefined {
  const { version } = item;
  const encoding = item[Layout.encoding];
  const opened = openSnapshot(codec, streamId, name, item);
  if (opened?.kind === 'forgotten') return undefined;
  const state = opened === undefined ? item['state'] : typeof encoding === 'string' ? opened.plaintext : opened.plaintext.toString('utf8');
  try {
    const json = typeof encoding === 'string' && state instanceof Uint8Array ? decompress(state, encoding) : state;
    const stateVersion = item[stateVersionAttribute];
    if (typeof version !== 'number' || typeof json !== 'string' || (stateVersion !== undefined && typeof stateVersion !== 'number')) {
      throw new Error('missing version or state');
    }
    const snapshot = { version, state: JSON.parse(json) as State, ...(stateVersion === undefined ? {} : { stateVersion }) };
    return withTrail(snapshot, opened?.trail);
  } catch (cause) {
    throw new DecodeError(
      `Snapshot "${name}" of ${codec.streamName} "${streamId}" can't be read; delete it to fold from version 1.`,
      codec.streamName,
      [],
      {
        cause,
      },
    );
  }
}

/** A sealed snapshot's state, opened; `undefined` for one that is not sealed. */
function openSnapshot(codec: EventCodec, streamId: string, name: string, item: Readonly<Record<string, unknown>>): OpenedState | undefined {
  const shares = item[Layout.personal];
  if (shares === undefined) return undefined;
  const where = `Snapshot "${name}" of ${codec.streamName} "${streamId}"`;
  if (codec.personal === undefined) {
    throw new DecodeError(
      `${where} is sealed for subjects, but the stream declares no \`personalData\`: declare it with its key table.`,
      codec.streamName,
    );
  }
  // Bound to the versions saved beside it: a state moved to another version's item does not open there.
  const { version } = item;
  const stateVersion = item[stateVersionAttribute] ?? 1;
  if (typeof version !== 'number' || typeof stateVersion !== 'number') {
    throw new DecodeError(`${where} lacks a numeric version or state version; delete it to fold from version 1.`, codec.streamName);
  }
  const place = { partitionKey: partitionKeyOf(codec.streamName, streamId), name, version, stateVersion };
  return codec.personal.openState(item['state'], shares, place, where);
}
