import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ReadModel } from '../store';
import { errorName, request } from '../store/request';
import type { CheckpointField } from './checkpoint';
import { storedCheckpoint } from './checkpoint';

/** A row as read for a fold: its state, checkpoint and what the conditional write must find unchanged. */
export interface ReadRow<State> {
  readonly exists: boolean;
  readonly state: State | undefined;
  /** The last stream version considered for the row (0 without a checkpoint). */
  readonly checkpoint: number;
  /** The stored checkpoint value, `undefined` when the row or its checkpoint field is absent. */
  readonly storedCheckpoint: number | undefined;
  readonly createdAt: string | undefined;
}

/** Reads a row strongly consistent, hidden fields included: the projection owns the whole row. */
export async function readRow<State>(readModel: ReadModel, checkpoint: CheckpointField, key: Readonly<Record<string, unknown>>): Promise<ReadRow<State>> {
  const item = await readModel.getItem(key);
  if (item === undefined) return { exists: false, state: undefined, checkpoint: 0, storedCheckpoint: undefined, createdAt: undefined };
  const { createdAt, updatedAt: _updatedAt, ...state } = readModel.fromItem(item, { includeHidden: true }) as Record<string, unknown>;
  const version = storedCheckpoint(checkpoint, item);
  const stored = item[checkpoint.field];
  return {
    exists: true,
    state: state as State,
    checkpoint: version ?? 0,
    storedCheckpoint: typeof stored === 'number' ? stored : undefined,
    createdAt: typeof createdAt === 'string' ? createdAt : undefined,
  };
}

/**
 * Writes a row whole, conditioned on what was read still being there: no row for a new one, else the
 * same checkpoint (or still none, for rows written before the projection). Resolves `false` when another
 * writer got there first.
 */
export async function writeRow(
  readModel: ReadModel,
  checkpoint: CheckpointField,
  read: ReadRow<unknown>,
  item: Record<string, unknown>,
): Promise<boolean> {
  const { condition, names, values } = rowCondition(readModel, checkpoint, read);
  try {
    await readModel.documents.send(
      new PutCommand({
        TableName: readModel.table,
        Item: item,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ...(values === undefined ? {} : { ExpressionAttributeValues: values }),
      }),
    );
    return true;
  } catch (error) {
    if (errorName(error) === 'ConditionalCheckFailedException') return false;
    return request('PutItem', () => Promise.reject(error));
  }
}

/** The condition that what was read is still there: no row, the same checkpoint, or still none. */
function rowCondition(
  readModel: ReadModel,
  checkpoint: CheckpointField,
  read: ReadRow<unknown>,
): { condition: string; names: Record<string, string>; values: Record<string, unknown> | undefined } {
  if (!read.exists) return { condition: 'attribute_not_exists(#pk)', names: { '#pk': readModel.key.pk.field }, values: undefined };
  if (read.storedCheckpoint === undefined) {
    return { condition: 'attribute_exists(#pk) AND attribute_not_exists(#cp)', names: { '#pk': readModel.key.pk.field, '#cp': checkpoint.field }, values: undefined };
  }
  return { condition: '#cp = :cp', names: { '#cp': checkpoint.field }, values: { ':cp': read.storedCheckpoint } };
}

/** The stored item of a folded row: `toItem` applied, checkpoint set, `createdAt` kept. */
export function rowItem(
  readModel: ReadModel,
  checkpoint: CheckpointField,
  row: Readonly<Record<string, unknown>>,
  version: number,
  createdAt: string | undefined,
): Record<string, unknown> {
  const now = new Date().toISOString();
  return readModel.toItem({ ...row, [checkpoint.field]: version + checkpoint.offset }, { createdAt: createdAt ?? now, updatedAt: now });
}
