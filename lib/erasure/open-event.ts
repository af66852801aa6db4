import { DecodeError, EventVersionTooNewError, PersonalDataTamperedError } from '../errors';
import { knownKey, open, storedBytes, storedFieldContext, type DataKey, type KnownKeys, type OpenedData, type SealedEventRef } from '../personal';
import type { Declaration } from './declaration';

/**
 * Puts an event's personal fields back into its stored data, before its schema parses it: each sealed with
 * a key this process loaded is opened; each of a forgotten subject reads as the value declared for it. A
 * key that was never loaded (`SubjectKeyNotLoadedError`) or that the table lacks (`SubjectKeyMissingError`)
 * is an error, never a silent redaction; so is a value that fails authentication
 * (`PersonalDataTamperedError`). Synchronous: readers load the keys of what they read first.
 */
export function openSealedFields(keys: KnownKeys, declaration: Declaration, raw: unknown, sealed: unknown, ref: SealedEventRef): OpenedData {
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
    const known = knownKey(keys, subject, ref.where);
    if (known.kind === 'forgotten') {
      for (const field of Object.keys(fields)) data[field] = replacement(declaration, ref, field);
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

/** The declared replacement of a forgotten subject's field, for the version the event is stored at. */
function replacement(declaration: Declaration, ref: SealedEventRef, field: string): unknown {
  const declared = declaration.replacementOf(ref.type, ref.storedVersion, field);
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
