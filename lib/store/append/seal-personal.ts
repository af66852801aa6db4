import { splitComposite, storedForm, type EventCodec, type ValidEvent } from '../codec';
import { planSealing, sealFields, type SealingTarget, type SubjectPlan } from '../erasure';
import { partitionKeyOf } from '../layout';

/**
 * Seals the personal fields of an append's events with their subjects' keys, once per append (its retries
 * write the same item): left out of the stored data and kept, sealed, in each event's `pd` attribute. The
 * keys are read, or made for subjects that have none, first; a forgotten subject fails the append with
 * `SubjectForgottenError` before anything is written. Events of types without personal data, and appends
 * to streams without any, pass unchanged.
 */
export async function sealPersonalData(
  codec: EventCodec,
  streamId: string,
  events: ReadonlyArray<ValidEvent>,
  signal?: AbortSignal,
): Promise<ReadonlyArray<ValidEvent>> {
  const personal = codec.personal;
  if (personal === undefined) return events;
  const target: SealingTarget = {
    streamName: codec.streamName,
    partitionKey: partitionKeyOf(codec.streamName, streamId),
    ids: () => splitComposite(`Stream id of ${codec.streamName}`, personal.streamIdFields, streamId),
  };
  const stored = events.map((event, index) => ({ type: event.type, data: JSON.parse(event.stored.json) as Record<string, unknown>, index }));
  const plans: Array<SubjectPlan[] | undefined> = stored.map((event) => planSealing(personal, target, event));
  const subjects = new Set(plans.flatMap((plan) => plan?.map(({ subject }) => subject) ?? []));
  if (subjects.size === 0) return events;
  const keys = await personal.keys.forWriting(subjects, signal);
  return events.map((event, index) => {
    const plan = plans[index];
    const data = stored[index];
    if (plan === undefined || data === undefined) return event;
    const { rest, personal: sealed } = sealFields(target, data, plan, keys);
    // What is stored of the data is decided again without the sealed fields (compressed only when still large).
    return { ...event, stored: storedForm(codec, `Event ${index} (${event.type}) of stream ${codec.streamName}`, index, rest), personal: sealed };
  });
}
