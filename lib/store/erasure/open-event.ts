import { DecodeError, EventVersionTooNewError, PersonalDataTamperedError, SubjectKeyMissingError, SubjectKeyNotLoadedError } from '../../errors';
import { open, storedBytes, type DataKey } from './cipher';
import type { HeldKey } from './key-cache';
import type { PersonalCodec } from './personal-codec';
import { storedFieldContext } from './contexts';
import type { Trail } from './trail';

/** A stored event whose sealed fields are opened: where it is and what its type reads as. */
export interface SealedEventRef {
  /** For messages ("Event item <pk> <sk> of stream Order…"). */
  readonly where: string;
  readonly streamName: string;
  readonly streamId: string;
  readonly version: number;
  readonly partitionKey: string;
  /** The type the event is stored under (an alias, for a renamed type). */
  readonly storedType: string;
  /** The type it reads as today, its stored version and today's. */
  readonly type: string;
  readonly storedVersion: number;
  readonly todaysVersion: number;
}

/** An event's data with its sealed fields put back, and the subjects opened. */
export interface OpenedData {
  readonly data: unknown;
  readonly trail: Trail | undefined;
}

/**
 * Puts an event's personal fields back into its stored data, before its schema parses it: each sealed with
 * a key this process loaded is opened; each of a forgotten subject reads as the value declared for it. A
 * key that was never loaded (`SubjectKeyNotLoadedError`) or that the table lacks (`SubjectKeyMissingError`)
 * is an error, never a silent redaction; so is a value that fails authentication
 * (`PersonalDataTamperedError`). Synchronous: readers load the keys of what they read first.
 */
export function openSealedFields(personal: PersonalCodec | undefined, raw: unknown, sealed: unknown, ref: SealedEventRef): OpenedData {
  if (personal === undefined) {
    throw new DecodeError(
      `${ref.where} holds sealed personal data, but stream ${ref.streamName} declares no \`personalData\`: declare it with the key table it was written with.`,
      ref.streamName,
    );
  }
  if (!isMap(sealed) || !isMap(raw)) {
    throw new DecodeError(
      `${ref.where}: its personal data is not a map of subjects to sealed fields, or its data is not an object; an append never writes that.`,
      ref.streamName,
    );
  }
  const data: Record<string, unknown> = { ...raw };
  const trail = new Map<string, DataKey>();
  for (const [subject, fields] of Object.entries(sealed)) {
    if (!isMap(fields)) throw new DecodeError(`${ref.where}: the sealed fields of subject "${subject}" are not a map.`, ref.streamName);
    const known = knownKey(personal, subject, ref.where);
    if (known.kind === 'forgotten') {
      for (const field of Object.keys(fields)) data[field] = replacement(personal, ref, field);
      continue;
    }
    trail.set(subject, known.key);
    for (const [field, value] of Object.entries(fields)) {
      const bytes = storedBytes(value);
      const place = { partitionKey: ref.partitionKey, storedType: ref.storedType, version: ref.version, subject, field };
      const plain = bytes === undefined ? undefined : open(known.key, bytes, (format) => storedFieldContext(format, place));
      if (plain === undefined) throw new PersonalDataTamperedError(`${ref.where}, field \`${field}\``, subject);
      data[field] = JSON.parse(plain.toString('utf8')) as unknown;
    }
  }
  return { data, trail: trail.size === 0 ? undefined : trail };
}

/** What this process loaded of a subject's key: its key or that it was forgotten; anything else is an error. */
export function knownKey(personal: Pick<PersonalCodec, 'keys'>, subject: string, where: string): HeldKey {
  const known = personal.keys.known(subject);
  if (known === undefined) throw new SubjectKeyNotLoadedError(subject, where);
  if (known.kind === 'missing') throw new SubjectKeyMissingError(subject, personal.keys.table, where);
  return known;
}

/** The declared replacement of a forgotten subject's field, for the version the event is stored at. */
function replacement(personal: PersonalCodec, ref: SealedEventRef, field: string): unknown {
  const declared = personal.replacementOf(ref.type, ref.storedVersion, field);
  if (declared !== undefined) return declared.value;
  if (ref.storedVersion > ref.todaysVersion) {
    const { streamName, streamId, version, storedType: type, storedVersion } = ref;
    throw new EventVersionTooNewError({ streamName, streamId, version, type, storedVersion }, ref.todaysVersion);
  }
  throw new DecodeError(
    `${ref.where}: its field \`${field}\` is sealed for a forgotten subject, but \`personalData\` declares no replacement for it at version ${ref.storedVersion} of ${ref.type}: declare one (under \`older\` for an older version).`,
    ref.streamName,
  );
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
