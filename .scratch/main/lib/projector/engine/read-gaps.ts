import { MissingEventsError } from '../../errors';
import { instanceKey, type AnyEventStream, type StreamEvent } from '../../store';
import type { CallContext } from './call-context';
import { holdsRange } from './plan-rows';

/**
 * The stream's events from checkpoint + 1 to `highest`: from the call's own events when they hold every
 * version (those of other rows and ignored ones count), else from ONE strongly consistent read of the
 * versions from the first to the last one not in hand. What is read is kept in hand for the call's other rows and retries.
 */
export async function eventsAbove(
  stream: AnyEventStream,
  streamId: string,
  call: CallContext<StreamEvent>,
  checkpoint: number,
  highest: number,
): Promise<StreamEvent[]> {
  const instance = instanceKey({ streamName: stream.name, streamId });
  let versions = call.inHand.get(instance);
  if (!holdsRange(versions, checkpoint + 1, highest)) {
    // Events are immutable: what is in hand (the call's own, an earlier try's) is not read again.
    const { after, to } = missingSpan(versions, checkpoint, highest);
    const read = await stream.readFrom(streamId, after, { toVersion: to, signal: call.signal });
    call.stats.gapReads++;
    if (versions === undefined) call.inHand.set(instance, (versions = new Map()));
    for (const event of read) versions.set(event.version, event);
    if (!holdsRange(versions, checkpoint + 1, highest)) {
      throw new MissingEventsError(stream.name, streamId, checkpoint + 1, highest);
    }
  }
  const events: StreamEvent[] = [];
  for (let version = checkpoint + 1; version <= highest; version++) events.push(versions?.get(version) as StreamEvent);
  return events;
}

/** The versions to read: after `after`, up to `to`, from the first to the last one of the range not in hand. */
function missingSpan(versions: ReadonlyMap<number, StreamEvent> | undefined, checkpoint: number, highest: number): { after: number; to: number } {
  let first = checkpoint + 1;
  while (versions?.has(first) === true) first++;
  let last = highest;
  while (versions?.has(last) === true) last--;
  return { after: first - 1, to: last };
}
