import { z } from 'zod';
import { ConfigurationError } from '../../errors';
import type { EventSchemas } from '../types';
import type { PersonalCodec, ResolvedGroup, ResolvedSubject } from './personal-codec';
import { nonStringOutputs } from './non-string-outputs';
import { SubjectKeys } from './subject-keys';

/** The fields of `Data` that hold strings: a subject id is one. */
type StringFieldOf<Data> = { [K in keyof Data & string]-?: NonNullable<Data[K]> extends string ? K : never }[keyof Data & string];

/**
 * Whose personal data an event's fields are: a subject id read from a field of the event's data (an
 * order's customer) or from a field of its stream id (an account's owner). Subject ids are stored in the
 * clear, so make them opaque ids, never the person's email or name.
 */
export type SubjectSource<Data, IdField extends string> = { readonly data: StringFieldOf<Data> } | { readonly streamId: IdField };

/**
 * One subject's personal fields of an event type: each field (of the type's data, at the top level) with
 * the value it reads as once the subject is forgotten, a value the field's schema accepts (`'[erased]'`,
 * `null` for a nullable field, `0`), at every version of the type that has the field unless `older`
 * declares that version's own. A field holding an object is sealed whole.
 *
 * @example
 * ```ts
 * { subject: { data: 'customerId' },
 *   fields: { email: '[erased]', address: null } }
 * ```
 */
export interface PersonalFields<Data, IdField extends string> {
  readonly subject: SubjectSource<Data, IdField>;
  readonly fields: { readonly [K in keyof Data]?: Data[K] };
}

/** The personal fields of an event type: one subject's, or several subjects' for an event about several people. */
export type PersonalDeclaration<Data, IdField extends string> = PersonalFields<Data, IdField> | ReadonlyArray<PersonalFields<Data, IdField>>;

/**
 * The `personalData` option of an event stream: the key store, and per event type which fields are
 * personal and whose they are. Appends seal those fields with the subject's key before anything is
 * written; every reader opens them, or reads the declared replacements once the subject is forgotten.
 */
export interface PersonalDataOptions<Events extends EventSchemas, IdField extends string> {
  /** The subjects' keys (one store per key table in a process: it holds the cache). */
  readonly keys: SubjectKeys;
  /** Today's version of each event type that holds personal data. A type or field the stream lacks is a `ConfigurationError`. */
  readonly events: { readonly [K in keyof Events & string]?: PersonalDeclaration<z.output<Events[K]>, IdField> };
  /**
   * Older versions of a type (see `versions`) whose stored events hold sealed fields of other names, or
   * whose schema refuses a replacement of today's: per type, per version, what their fields read as once
   * the subject is forgotten (the event is then upcast like any other). A field a version does not list
   * reads as today's replacement, which that version's schema must accept: one it refuses is a
   * `ConfigurationError` at construction naming the version to declare here.
   * @defaultValue none
   */
  readonly older?:
    { readonly [K in keyof Events & string]?: Readonly<Record<number, PersonalDeclaration<Record<string, unknown>, IdField>>> } | undefined;
}

/** What resolving needs of the stream: its events' schemas and their versions' schemas (see `versions`). */
export interface DeclaringStream {
  readonly name: string;
  readonly streamIdFields: ReadonlyArray<string>;
  readonly events: EventSchemas;
  /** Today's version of a type, its older versions' schemas, and whether it is retired. */
  readonly types: ReadonlyMap<
    string,
    {
      readonly type: string;
      readonly version: number;
      readonly older: ReadonlyMap<number, { readonly schema: z.ZodType }>;
      readonly retired?: unknown;
    }
  >;
}

/** Checks a stream's `personalData` and resolves it for the codec; throws `ConfigurationError` naming what to fix. */
export function resolvePersonalData(stream: DeclaringStream, option: PersonalDataOptions<EventSchemas, string>): PersonalCodec {
  const where = `Stream ${stream.name}: \`personalData\``;
  if (typeof option !== 'object' || option === null) throw new ConfigurationError(`${where} must be an object with \`keys\` and \`events\`.`);
  if (!(option.keys instanceof SubjectKeys)) throw new ConfigurationError(`${where}: expected \`keys\` to be a SubjectKeys.`);
  if (typeof option.events !== 'object' || option.events === null || Object.keys(option.events).length === 0) {
    throw new ConfigurationError(`${where}: expected \`events\` to declare the personal fields of at least one event type.`);
  }
  const today = new Map<string, ResolvedGroup[]>();
  for (const [type, declaration] of Object.entries(option.events)) {
    const reading = stream.types.get(type);
    if (!Object.hasOwn(stream.events, type) || reading === undefined) {
      throw new ConfigurationError(`${where}: \`events.${type}\` names no event type of the stream (${Object.keys(stream.events).join(', ')}).`);
    }
    const schema = reading.retired === undefined ? (stream.events[type] as z.ZodType) : undefined;
    today.set(type, resolveGroups(`${where}, \`events.${type}\``, stream, schema, declaration));
  }
  const older = new Map<string, Map<number, ResolvedGroup[]>>();
  for (const [type, versions] of Object.entries(option.older ?? {})) {
    const reading = stream.types.get(type);
    if (!Object.hasOwn(stream.events, type) || reading === undefined) {
      throw new ConfigurationError(`${where}: \`older.${type}\` names no event type of the stream.`);
    }
    const byVersion = new Map<number, ResolvedGroup[]>();
    for (const [key, declaration] of Object.entries(versions ?? {})) {
      const version = Number(key);
      const olderVersion = reading.older.get(version);
      if (olderVersion === undefined) {
        throw new ConfigurationError(`${where}: \`older.${type}.${key}\` names no older version of ${type} (see \`versions.${type}.older\`).`);
      }
      byVersion.set(version, resolveGroups(`${where}, \`older.${type}.${key}\``, stream, olderVersion.schema, declaration));
    }
    older.set(type, byVersion);
  }
  for (const [type, groups] of today) checkOlderVersions(`${where}, \`events.${type}\``, stream, type, groups, older.get(type));
  return personalCodec(option.keys, stream, today, older);
}

/**
 * Today's replacements must read at every older version of the type that has the field, as its events
 * stored there are redacted before they are parsed with that version's schema and upcast: a version whose
 * schema refuses today's value needs one of its own under `older`.
 */
function checkOlderVersions(
  where: string,
  stream: DeclaringStream,
  type: string,
  groups: ReadonlyArray<ResolvedGroup>,
  declared: ReadonlyMap<number, ReadonlyArray<ResolvedGroup>> | undefined,
): void {
  const reading = stream.types.get(type);
  for (const [version, { schema }] of reading?.older ?? []) {
    if (!(schema instanceof z.ZodObject)) continue;
    const own = new Set((declared?.get(version) ?? []).flatMap((group) => [...group.fields.keys()]));
    for (const [field, replacement] of groups.flatMap((group) => [...group.fields])) {
      const fieldSchema = (schema.shape as Record<string, z.ZodType | undefined>)[field];
      if (own.has(field) || fieldSchema === undefined || fieldSchema.safeParse(replacement).success) continue;
      throw new ConfigurationError(
        `${where}: version ${version} of ${type} has the field \`${field}\` too, and its schema there refuses today's replacement ${shown(replacement)}, ` +
          `so its events stored at version ${version} could not be read once their subject is forgotten: declare a replacement version ${version} accepts under \`older.${type}.${version}\`.`,
      );
    }
  }
}

function shown(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function personalCodec(
  keys: SubjectKeys,
  stream: DeclaringStream,
  today: ReadonlyMap<string, ReadonlyArray<ResolvedGroup>>,
  older: ReadonlyMap<string, ReadonlyMap<number, ReadonlyArray<ResolvedGroup>>>,
): PersonalCodec {
  const replacements = (groups: ReadonlyArray<ResolvedGroup> | undefined) =>
    new Map((groups ?? []).flatMap((group) => [...group.fields].map(([field, value]) => [field, { value }] as const)));
  const todays = new Map([...today].map(([type, groups]) => [type, replacements(groups)]));
  const olders = new Map([...older].map(([type, versions]) => [type, new Map([...versions].map(([v, groups]) => [v, replacements(groups)]))]));
  return {
    keys,
    streamIdFields: stream.streamIdFields,
    groupsOf: (type) => today.get(type) ?? [],
    // A field an older version does not declare reads as today's replacement (its schema there accepts it: see checkOlderVersions).
    replacementOf: (type, version, field) => olders.get(type)?.get(version)?.get(field) ?? todays.get(type)?.get(field),
  };
}

function resolveGroups(where: string, stream: DeclaringStream, schema: z.ZodType | undefined, declaration: unknown): ResolvedGroup[] {
  const list = Array.isArray(declaration) ? (declaration as unknown[]) : [declaration];
  if (list.length === 0) throw new ConfigurationError(`${where}: expected \`{ subject, fields }\` or a non-empty list of them.`);
  const shape = schema === undefined ? undefined : shapeOf(where, schema);
  const groups = list.map((entry, index) => resolveGroup(list.length === 1 ? where : `${where}[${index}]`, stream, shape, entry));
  const seen = new Set<string>();
  for (const group of groups) {
    for (const field of group.fields.keys()) {
      if (seen.has(field)) throw new ConfigurationError(`${where}: the field \`${field}\` is declared for two subjects; a field has one owner.`);
      seen.add(field);
    }
  }
  for (const group of groups) {
    if ('data' in group.subject && seen.has(group.subject.data)) {
      throw new ConfigurationError(
        `${where}: the subject field \`${group.subject.data}\` is also declared personal; the subject id stays readable, so keep it an opaque id.`,
      );
    }
  }
  return groups;
}

function resolveGroup(where: string, stream: DeclaringStream, shape: Readonly<Record<string, z.ZodType>> | undefined, entry: unknown): ResolvedGroup {
  const { subject, fields } = (entry ?? {}) as { subject?: unknown; fields?: unknown };
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields) || Object.keys(fields).length === 0) {
    throw new ConfigurationError(
      `${where}: expected \`fields\` to map at least one personal field to the value it reads as once its subject is forgotten.`,
    );
  }
  const resolved = new Map<string, unknown>();
  for (const [field, replacement] of Object.entries(fields)) {
    const fieldSchema = shape?.[field];
    if (shape !== undefined && fieldSchema === undefined) {
      throw new ConfigurationError(`${where}: the personal field \`${field}\` is not in the type's schema (${Object.keys(shape).join(', ')}).`);
    }
    if (fieldSchema !== undefined && !fieldSchema.safeParse(replacement).success) {
      throw new ConfigurationError(
        `${where}: the field \`${field}\`'s schema refuses its replacement ${shown(replacement)}; give a value it accepts (make the field nullable for \`null\`).`,
      );
    }
    resolved.set(field, replacement);
  }
  return { subject: resolveSubject(where, stream, shape, subject), fields: resolved };
}

function resolveSubject(
  where: string,
  stream: DeclaringStream,
  shape: Readonly<Record<string, z.ZodType>> | undefined,
  subject: unknown,
): ResolvedSubject {
  const source = (subject ?? {}) as { data?: unknown; streamId?: unknown };
  if (typeof source.streamId === 'string' && source.data === undefined) {
    if (!stream.streamIdFields.includes(source.streamId)) {
      throw new ConfigurationError(
        `${where}: \`subject.streamId\` names \`${source.streamId}\`, not a field of the stream id (${stream.streamIdFields.join(', ')}).`,
      );
    }
    return { streamId: source.streamId };
  }
  if (typeof source.data === 'string' && source.streamId === undefined) {
    const fieldSchema = shape?.[source.data];
    if (shape !== undefined && fieldSchema === undefined) {
      throw new ConfigurationError(`${where}: \`subject.data\` names \`${source.data}\`, which is not in the type's schema.`);
    }
    const others = fieldSchema === undefined ? [] : nonStringOutputs(fieldSchema);
    if (others.length > 0) {
      const holds = others.includes('nothing') ? 'only null or undefined' : others.join(' or ');
      throw new ConfigurationError(
        `${where}: \`subject.data\` names \`${source.data}\`, whose schema holds ${holds}, not a string; a subject id is a string (an opaque id): ` +
          `read it from a field whose schema is z.string() or one of its formats.`,
      );
    }
    return { data: source.data };
  }
  throw new ConfigurationError(`${where}: expected \`subject\` to be { data: '<field>' } or { streamId: '<field>' }.`);
}

/** The fields of an object schema; personal fields are top-level fields, so the schema must be one. */
function shapeOf(where: string, schema: z.ZodType): Readonly<Record<string, z.ZodType>> {
  if (schema instanceof z.ZodObject) return schema.shape;
  throw new ConfigurationError(`${where}: personal fields are fields of a z.object() schema, and this type's schema is not one.`);
}
