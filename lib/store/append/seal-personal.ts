import { splitComposite, storedForm, type EventCodec, type ValidEvent } from '../codec';
import { partitionKeyOf } from '../layout';
import type { SealingTarget } from '../../personal';

/** An append's events with their personal fields sealed for the versions a try writes them at, from `firstVersion` on. */
export type SealedAt = (firstVersion: number) => ReadonlyArray<ValidEvent>;

/**
 * Readies an append's events for sealing their personal fields with their subjects' keys (the stream's
 * `sealing` hook): the keys are read, or made for subjects that have none, once, before the first try; a
 * forgotten subject fails the append with `SubjectForgottenError` before anything is written. Each sealed
 * field is bound to its event's version, so the events are sealed for the versions a try writes them at:
 * again only when a lost race moves the append (a field costs a few microseconds; the race, a round trip).
 * Sealed, a field leaves the stored data for the event's `pd` attribute. Events of types without personal
 * data, and appends to streams without any, pass unchanged.
 */
export async function sealPersonalData(
  codec: EventCodec,
  streamIdFields: ReadonlyArray<string>,
  streamId: string,
  events: ReadonlyArray<ValidEvent>,
  signal?: AbortSignal,
): Promise<SealedAt> {
  const personal = codec.personal;
  if (personal === undefined) return () => events;
  const target: SealingTarget = {
    streamName: codec.streamName,
    partitionKey: partitionKeyOf(codec.streamName, streamId),
    ids: () => splitComposite(`Stream id of ${codec.streamName}`, streamIdFields, streamId),
  };
  const stored = events.map((event, index) => ({ type: event.type, data: JSON.parse(event.stored.json) as Record<string, unknown>, index }));
  const seal = await personal.sealing(target, stored, signal);
  if (seal === undefined) return () => events;
  const sealAt = (firstVersion: number) =>
    events.map((event, index) => {
      const sealed = seal(index, firstVersion + index);
      if (sealed === undefined) return event;
      // What is stored of the data is decided again without the sealed fields (compressed only when still large).
      return {
        ...event,
        stored: storedForm(codec, `Event ${index} (${event.type}) of stream ${codec.streamName}`, index, sealed.rest),
        personal: sealed.personal,
      };
    });
  // A try that goes again at the same version (a transaction cancelled for another) writes the same items.
  let last: { readonly firstVersion: number; readonly events: ReadonlyArray<ValidEvent> } | undefined;
  return (firstVersion) => {
    if (last?.firstVersion !== firstVersion) last = { firstVersion, events: sealAt(firstVersion) };
    return last.events;
  };
}
