import { ValidationError } from '../errors';
import {
  FIELD_FORMAT,
  fieldContext,
  keyedHash,
  seal,
  type DataKey,
  type EventToSeal,
  type SealEvent,
  type SealedPersonal,
  type SealingTarget,
} from '../personal';
import type { Declaration, ResolvedGroup } from './declaration';
import { requireSubject } from './key-table';
import type { KeyStore } from './key-store';

type Data = Readonly<Record<string, unknown>>;

/** An event of an append at the version it is about to be written at (its sealed fields are bound to it). */
export interface EventAtVersion extends EventToSeal {
  readonly version: number;
}

/** One subject's share of an event: the subject id and the fields it owns that the event holds. */
export interface SubjectPlan {
  readonly subject: string;
  readonly fields: ReadonlyArray<string>;
}

/**
 * Readies an append's events for sealing their personal fields (see `PersonalCodec.sealing`): which
 * subjects each event's fields belong to, and their keys, read or made once, before the first try. A
 * forgotten subject fails the append with `SubjectForgottenError` before anything is written. Each field is
 * sealed bound to its event's version, so the store seals again for the versions a try writes at.
 */
export async function prepareSealing(
  keys: KeyStore,
  declaration: Declaration,
  target: SealingTarget,
  events: ReadonlyArray<EventToSeal>,
  signal: AbortSignal | undefined,
): Promise<SealEvent | undefined> {
  const plans = events.map((event) => planSealing(declaration, target, event));
  const subjects = new Set(plans.flatMap((plan) => plan?.map(({ subject }) => subject) ?? []));
  if (subjects.size === 0) return undefined;
  const held = await keys.forWriting(subjects, signal);
  return (index, version) => {
    const plan = plans[index];
    const event = events[index];
    return plan === undefined || event === undefined ? undefined : sealFields(target, { ...event, version }, plan, held);
  };
}

/**
 * Which subjects an event's personal fields belong to (see `personalData`); `undefined` for an event with
 * none to seal (a type without personal fields, or none of them set). A subject id that is none is a
 * `ValidationError` naming the event and where the id came from.
 */
export function planSealing(declaration: Declaration, target: SealingTarget, event: EventToSeal): SubjectPlan[] | undefined {
  const groups = declaration.groupsOf(event.type);
  if (groups.length === 0) return undefined;
  const plans = new Map<string, string[]>();
  for (const group of groups) {
    const fields = [...group.fields.keys()].filter((field) => event.data[field] !== undefined);
    if (fields.length === 0) continue;
    const subject = subjectOf(target, event, group);
    plans.set(subject, [...(plans.get(subject) ?? []), ...fields]);
  }
  return plans.size === 0 ? undefined : [...plans].map(([subject, fields]) => ({ subject, fields }));
}

function subjectOf(target: SealingTarget, event: EventToSeal, group: ResolvedGroup): string {
  const where = `Event ${event.index} (${event.type}) of stream ${target.streamName}`;
  if ('streamId' in group.subject) {
    return requireSubject(target.ids()[group.subject.streamId], `${where}, subject from the stream id's \`${group.subject.streamId}\``);
  }
  const field = group.subject.data;
  try {
    return requireSubject(event.data[field], `${where}, subject from its field \`${field}\``);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(error.message, [{ path: [event.index, 'data', field], message: 'not a subject id' }], { cause: error });
  }
}

/**
 * Seals an event's personal fields as planned, each field's JSON on its own with a fresh IV, bound to its
 * place and its event's version: what the event's `pd` attribute holds, its data without them (`rest`,
 * what its `data` stores), and the rest of what an append needs (see {@link SealedPersonal}).
 */
export function sealFields(
  target: SealingTarget,
  event: EventAtVersion,
  plan: ReadonlyArray<SubjectPlan>,
  keys: ReadonlyMap<string, DataKey>,
): { readonly rest: Data; readonly personal: SealedPersonal } {
  const rest: Record<string, unknown> = { ...event.data };
  const attribute: Record<string, Record<string, Uint8Array>> = {};
  const trail = new Map<string, DataKey>();
  for (const { subject, fields } of plan) {
    const key = keys.get(subject);
    if (key === undefined) throw new Error(`unreachable: no key was made for subject ${subject}`);
    trail.set(subject, key);
    const sealed: Record<string, Uint8Array> = {};
    for (const field of fields) {
      const json = JSON.stringify(event.data[field]);
      const place = { partitionKey: target.partitionKey, storedType: event.type, version: event.version, subject, field };
      sealed[field] = seal(key, Buffer.from(json, 'utf8'), fieldContext(place), FIELD_FORMAT);
      delete rest[field];
    }
    attribute[subject] = sealed;
  }
  const identity = () => {
    const hashed: Record<string, unknown> = { ...event.data };
    for (const { subject, fields } of plan) {
      for (const field of fields) hashed[field] = { sealed: keyedHash(trail.get(subject) as DataKey, JSON.stringify(event.data[field])) };
    }
    return hashed;
  };
  return { rest, personal: { attribute, data: event.data, identity, trail } };
}
