/** Items of one event, as an append of it writes them, and back: for the codec's unit tests. */
import type { EventCodec, ValidEvent } from '../../lib/store/codec/event-codec';
import { fromCommitItem, toCommitItem } from '../../lib/store/codec/commit-codec';
import { storedEventAttributes } from '../../lib/store/codec/stored-event';

/** The commit of one event, as an append of it writes. */
export function toEventItem(codec: EventCodec, streamId: string, version: number, event: ValidEvent, appendedAt: number) {
  return toCommitItem(codec, streamId, version, [storedEventAttributes(codec, event)], { appendedAt });
}

/** The one event a commit of one holds. */
export function fromEventItem(codec: EventCodec, item: Readonly<Record<string, unknown>>) {
  const [event, ...more] = fromCommitItem(codec, item);
  if (event === undefined || more.length > 0) throw new Error(`expected one event, got ${more.length + (event === undefined ? 0 : 1)}`);
  return event;
}
