import { RowAttributes } from '../../read-model';
import { WRITE_ID_LENGTH, newWriteId } from '../../dynamo';

/**
 * The ids of a row's last writes, kept on the row (`RowAttributes.writes`, newest last). A row write whose
 * answer is lost is sent again by the SDK, and its condition then fails on the row it wrote itself, or on
 * a later writer's row if one got in between. Either way its id is here, so the write counts as done (see
 * `sendConditional`), and its events are in its call's `applied`, as in no other call's. The row remembers
 * {@link REMEMBERED_WRITES} writes: a write whose retry comes after more than that many other writes of the
 * row (in the second or so the SDK's retries take) would count as lost, and its events as applied by no call.
 */
export const REMEMBERED_WRITES = 8;

/** The ids a write of a row stores, and its own id among them (the last). */
export interface RowWrite {
  readonly writes: string;
  readonly id: string;
}

/** A new write of a row that holds `writes`: its id, after the most recent ids the row remembers. */
export function nextWrite(writes: string | undefined): RowWrite {
  const id = newWriteId();
  const kept = (writes ?? '').slice(-(REMEMBERED_WRITES - 1) * WRITE_ID_LENGTH);
  return { writes: kept + id, id };
}

/** The ids a stored row holds. */
export function writesOf(item: Readonly<Record<string, unknown>>): string | undefined {
  const writes = item[RowAttributes.writes];
  return typeof writes === 'string' ? writes : undefined;
}

/** The id of the write that wrote `item` (the newest it holds). */
export function writeIdOf(item: Readonly<Record<string, unknown>>): string | undefined {
  const writes = writesOf(item);
  return writes === undefined || writes.length < WRITE_ID_LENGTH ? undefined : writes.slice(-WRITE_ID_LENGTH);
}

/** Whether the write `id` is among the last writes of the stored row `item`. */
export function holdsWrite(item: Readonly<Record<string, unknown>>, id: string): boolean {
  const writes = writesOf(item) ?? '';
  for (let at = writes.length - WRITE_ID_LENGTH; at >= 0; at -= WRITE_ID_LENGTH) if (writes.startsWith(id, at)) return true;
  return false;
}
