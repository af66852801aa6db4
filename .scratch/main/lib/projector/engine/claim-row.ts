import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RowAttributes } from '../../store';
import { asRequestError, isConditionFailure } from '../../dynamo';
import type { Key } from './plan-rows';
import type { ReadRow } from './read-rows';
import type { RowStore } from './row-store';
import { rowCondition, rowPut, stubItem } from './write-row';

/**
 * Marks a row `more` before the first of a fold's several writes (an outbox's messages past one
 * transaction), conditioned as a write of the row as read would be. Lanes racing for a row then race
 * with this small write instead of transactions of messages: the one that claims it writes, the others
 * see the mark and watch (`RowWatch`). A row that does not exist is claimed with a stub, which reads
 * never show. Resolves the row as claimed, to condition the fold's first write on, or `undefined` when
 * another writer changed the row first.
 */
export async function claimRow<State>(store: RowStore, read: ReadRow<State>, key: Key): Promise<ReadRow<State> | undefined> {
  const table = store.readModel.table;
  try {
    if (!read.exists) {
      const item = stubItem(store, read, key, { checkpoints: new Map(), removed: false, more: true });
      // The stub holds no revision of its own: the fold's first write is the row's first revision.
      delete item[RowAttributes.revision];
      await store.documents.send(new PutCommand(rowPut(store, read, item)));
      return { ...read, exists: true, stub: true, more: true };
    }
    const { condition, names, values } = rowCondition(store, read);
    await store.documents.send(
      new UpdateCommand({
        TableName: table,
        Key: store.readModel.keyOf(key),
        UpdateExpression: 'SET #more = :claim',
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...values, ':claim': true },
      }),
    );
    return { ...read, more: true };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw asRequestError(read.exists ? 'UpdateItem' : 'PutItem', table, error);
  }
}
