import { RowAttributes } from '../../read-model';
import type { Key } from './plan-rows';
import type { ReadRow } from './read-rows';
import type { RowStore } from './row-store';
import { nextWrite, writeIdOf, writesOf } from './row-writes';
import { rowCondition, rowPut, sendRowWrite, stubItem } from './write-row';

/**
 * Marks a row `more` before the first of a fold's several writes (an outbox's messages past one
 * transaction), conditioned as a write of the row as read would be. Lanes racing for a row then race
 * with this small write instead of transactions of messages: the one that claims it writes, the others
 * see the mark and watch (`RowWatch`). A row that does not exist is claimed with a stub, which reads
 * never show. Resolves the row as claimed, to condition the fold's first write on, or `undefined` when
 * another writer changed the row first.
 */
export async function claimRow<State>(store: RowStore, read: ReadRow<State>, key: Key): Promise<ReadRow<State> | undefined> {
  if (!read.exists) {
    const item = stubItem(store, read, key, { checkpoints: new Map(), removed: false, more: true });
    // The stub holds no revision of its own: the fold's first write is the row's first revision.
    delete item[RowAttributes.revision];
    const claimed = await sendRowWrite(store, 'PutItem', writeIdOf(item) as string, rowPut(store, read, item));
    return claimed ? { ...read, exists: true, stub: true, more: true, writes: writesOf(item) } : undefined;
  }
  const { condition, names, values } = rowCondition(store, read);
  const write = nextWrite(read.writes);
  const claimed = await sendRowWrite(store, 'UpdateItem', write.id, {
    TableName: store.readModel.table,
    Key: store.readModel.keyOf(key),
    UpdateExpression: 'SET #more = :claim, #writes = :claimWrites',
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ...values, ':claim': true, ':claimWrites': write.writes },
  });
  return claimed ? { ...read, more: true, writes: write.writes } : undefined;
}
