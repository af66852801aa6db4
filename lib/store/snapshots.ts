import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DecodeError, ValidationError } from '../errors';
import { asRequestError, compress, decompress, getItem, isConditionFailure } from '../dynamo';
import type { EventCodec } from './event-codec';
import { Layout, MAX_VERSION, partitionKeyOf } from './layout';
import { describeDataIssues, jsonIssues } from './plain-data';

/** A fold's state as of a version, saved to shorten later loads. */
export interface Snapshot<State> {
  readonly version: number;
  readonly state: State;
}

/** Snapshots are kept per name, so two folds over one stream keep their own. */
export const DEFAULT_SNAPSHOT_NAME = 'default';

function snapshotKey(codec: EventCodec, streamId: string, name: string): Record<string, string> {
  return {
    [Layout.partitionKey]: partitionKeyOf(codec.streamName, streamId),
    [Layout.sortKey]: `${Layout.snapshotSortKey}#${name}`,
  };
}

/**
 * Saves a snapshot unless one at the same or a newer version exists: snapshots only move forward, so a
 * slow writer can't replace a newer snapshot with an older one. Resolves `true` when it was written.
 * The state is stored as JSON (compressed like event data when large), so it must survive JSON.
 */
export async function saveSnapshot<State>(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
  snapshot: Snapshot<State>,
  name = DEFAULT_SNAPSHOT_NAME,
): Promise<boolean> {
  validateSnapshot(codec, streamId, snapshot);
  const json = JSON.stringify(snapshot.state);
  const algorithm =
    codec.compression !== false && Buffer.byteLength(json) > codec.compression.thresholdBytes ? codec.compression.algorithm : undefined;
  try {
    await documents.send(
      new PutCommand({
        TableName: table,
        Item: {
          ...snapshotKey(codec, streamId, name),
          [Layout.snapshotMarker]: codec.streamName,
          version: snapshot.version,
          state: algorithm === undefined ? json : compress(json, algorithm),
          ...(algorithm === undefined ? {} : { [Layout.encoding]: algorithm }),
          timestamp: new Date().toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(#pk) OR #version < :version',
        ExpressionAttributeNames: { '#pk': Layout.partitionKey, '#version': 'version' },
        ExpressionAttributeValues: { ':version': snapshot.version },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw asRequestError('PutItem', table, error);
  }
}

function validateSnapshot(codec: EventCodec, streamId: string, snapshot: Snapshot<unknown>): void {
  const where = `A snapshot of ${codec.streamName} "${streamId}"`;
  const { version, state } = snapshot;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0 || version > MAX_VERSION) {
    throw new ValidationError(`${where} needs a version that is an integer from 0 to ${MAX_VERSION}, got ${String(version)}.`, [
      { path: ['version'], message: 'not a version' },
    ]);
  }
  const issues = jsonIssues(state, ['state']);
  if (issues.length > 0)
    throw new ValidationError(`${where} can't be stored: ${describeDataIssues(issues)}. A snapshot's state must be plain JSON.`, issues);
}

/** The latest snapshot of a stream instance under `name`, read strongly consistent unless `consistent` is false. */
export async function loadSnapshot<State>(
  documents: DynamoDBDocumentClient,
  table: string,
  codec: EventCodec,
  streamId: string,
  name = DEFAULT_SNAPSHOT_NAME,
  consistent = true,
): Promise<Snapshot<State> | undefined> {
  const item = await getItem(documents, table, snapshotKey(codec, streamId, name), consistent);
  if (item === undefined) return undefined;
  const { version, state } = item;
  const encoding = item[Layout.encoding];
  try {
    const json = typeof encoding === 'string' && state instanceof Uint8Array ? decompress(state, encoding) : state;
    if (typeof version !== 'number' || typeof json !== 'string') throw new Error('missing version or state');
    return { version, state: JSON.parse(json) as State };
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
