import { RowAttributes } from '../../read-model';
import type { Key } from './plan-rows';
import type { ReadRow } from './read-rows';
import type { RowStore } from './row-store';
import { putRow, sendRowWrite, stubItem, updateRow } from './write-row';

/**
 * Marks a row `more` before the first of a fold's several writes (an outbox's messages past one
 * transaction), conditioned as a write of the row as read would be. Lanes racing for a row then race
 * with this small write instead of transactions of messages: the one that claims it writes, the others
 * see the mark and watch (`RowWatch`). A row that does not exist is claimed with a stub, which reads
 * never show, and which holds no revision of its own: the fold's first write is the row's first. Resolves
 * the row as claimed, to condition the fold's first write on, or `undefined` when another writer changed
 * the row first.
 */
export async function claimRow<State>(store: RowStore, read: ReadRow<State>, key: Key): Promise<ReadRow<State> | undefined> {
  const claim = read.exists ? updateRow(store, read, key, { [RowAttributes.more]: true }) : putRow(store, read, claimingStub(store, read, key));
  if (!(await sendRowWrite(store, claim))) return undefined;
  return { ...read, ...(read.exists ? {} : { exists: true, stub: true }), more: true, writes: claim.writes };
}

/** The stub a claim puts where no row is: the row's bookkeeping, marked `more`, with no revision. */
function claimingStub(store: RowStore, read: ReadRow<unknown>, key: Key): Record<string, unknown> {
  const item = stubItem(store, read, key, { checkpoints: new Map(), removed: false, more: true });
  delete item[RowAttributes.revision];
  return item;
}
