import { DecodeError, ValidationError } from '../../errors';
import { compress, decompress } from '../../dynamo';
import { withTrail, type OpenedState, type SealedState, type SnapshotPlace, type Trail } from '../../personal';
import { Layout, MAX_VERSION, partitionKeyOf } from '../layout';
import { describeDataIssues, jsonIssues } from '../plain-data';
import type { Snapshot } from '../types';
import type { EventCodec } from './event-codec';

/** A snapshot item's own attributes, beside its keys, marker, `enc` and `pd`. */
export const SnapshotAttributes = {
  version: 'version',
  /** The version of the state's shape, absent for version 1 (and on those saved before it had one). */
  stateVersion: 'stateVersion',
  state: 'state',
  timestamp: 'timestamp',
} as const;

/** The key of a stream instance's snapshot item at `sortKey` (see `snapshotSortKey`). */
export function snapshotKey(codec: EventCodec, streamId: string, sortKey: string): Record<string, string> {
  return { [Layout.partitionKey]: partitionKeyOf(codec.streamName, streamId), [Layout.sortKey]: sortKey };
}

/**
 * The item that stores a snapshot under `sortKey`: its state as JSON (compressed like event data when
 * large, so it must survive JSON), sealed for the subjects of `trail` when there are any. An invalid
 * snapshot is a `ValidationError`.
 */
export function toSnapshotItem(
  codec: EventCodec,
  streamId: string,
  snapshot: Snapshot<unknown>,
  place: { readonly name: string; readonly sortKey: string },
  trail: Trail | undefined,
): Record<string, unknown> {
  validateSnapshot(codec, streamId, snapshot);
  const stateVersion = snapshot.stateVersion ?? 1;
  const json = JSON.stringify(snapshot.state);
  const algorithm =
    codec.compression !== false && Buffer.byteLength(json) > codec.compression.thresholdBytes ? codec.compression.algorithm : undefined;
  const state = algorithm === undefined ? json : compress(json, algorithm);
  // A state that holds personal data is sealed for its subjects: it opens only while none of them is
  // forgotten, and only beside the versions it was saved with.
  const sealedAt = { partitionKey: partitionKeyOf(codec.streamName, streamId), name: place.name, version: snapshot.version, stateVersion };
  const sealed =
    trail === undefined || trail.size === 0
      ? undefined
      : sealedState(codec, trail, typeof state === 'string' ? Buffer.from(state, 'utf8') : state, sealedAt);
  return {
    ...snapshotKey(codec, streamId, place.sortKey),
    [Layout.snapshotMarker]: codec.streamName,
    [SnapshotAttributes.version]: snapshot.version,
    ...(stateVersion === 1 ? {} : { [SnapshotAttributes.stateVersion]: stateVersion }),
    [SnapshotAttributes.state]: sealed === undefined ? state : sealed.body,
    ...(algorithm === undefined ? {} : { [Layout.encoding]: algorithm }),
    ...(sealed === undefined ? {} : { [Layout.personal]: sealed.shares }),
    [SnapshotAttributes.timestamp]: new Date().toISOString(),
  };
}

/** A state sealed for the subjects of `trail`: only the events of a stream that declares personal data have any. */
function sealedState(codec: EventCodec, trail: Trail, state: Uint8Array, place: SnapshotPlace): SealedState {
  if (codec.personal === undefined) throw new Error(`unreachable: a state of ${codec.streamName} holds personal data the stream does not declare`);
  return codec.personal.sealState(trail, state, place);
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
 * A stored snapshot item's snapshot; a broken one is a {@link DecodeError} saying to delete it. A snapshot
 * sealed for subjects opens with the keys loaded for them (the commit layer loads them first), and is `undefined` once one
 * of them is forgotten: the load folds from the events, which read redacted.
 */
export function fromSnapshotItem<State>(
  codec: EventCodec,
  streamId: string,
  name: string,
  item: Readonly<Record<string, unknown>>,
): Snapshot<State> | undefined {
  const { version } = item;
  const encoding = item[Layout.encoding];
  const opened = openSnapshot(codec, streamId, name, item);
  if (opened?.kind === 'forgotten') return undefined;
  const state =
    opened === undefined ? item[SnapshotAttributes.state] : typeof encoding === 'string' ? opened.plaintext : opened.plaintext.toString('utf8');
  try {
    const json = typeof encoding === 'string' && state instanceof Uint8Array ? decompress(state, encoding) : state;
    const stateVersion = item[SnapshotAttributes.stateVersion];
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
  const stateVersion = item[SnapshotAttributes.stateVersion] ?? 1;
  if (typeof version !== 'number' || typeof stateVersion !== 'number') {
    throw new DecodeError(`${where} lacks a numeric version or state version; delete it to fold from version 1.`, codec.streamName);
  }
  const place = { partitionKey: partitionKeyOf(codec.streamName, streamId), name, version, stateVersion };
  return codec.personal.openState(item[SnapshotAttributes.state], shares, place, where);
}
