import { z } from 'zod';
import { ConfigurationError } from '../errors';
import type { DeclaringStream } from '../personal';
import { nonStringOutputs } from './non-string-outputs';

/** Where an event's subject id is read from, resolved. */
export type ResolvedSubject = { readonly data: string } | { readonly streamId: string };

/** One subject's personal fields of an event type, resolved: each field with the value it reads as once the subject is forgotten. */
export interface ResolvedGroup {
  readonly subject: ResolvedSubject;
  readonly fields: ReadonlyMap<string, unknown>;
}

/** A stream's `personalData`, checked: what each event type seals at today's version, and what a sealed field of a stored version reads as once its subject is forgotten. */
export interface Declaration {
  /** The groups of personal fields an event of `type` (today's name) seals when appended; none for a type without personal data. */
  groupsOf(type: string): ReadonlyArray<ResolvedGroup>;
  /** What `field` of an event of `type` stored at `version` reads as once its subject is forgotten; `undefined` when it was not declared. */
  replacementOf(type: string, version: number, field: string): { readonly value: unknown } | undefined;
}

/** The declaring part of a `personalData` option (see `PersonalDataOptions`), as it is checked: anything may come at run time. */
export interface DeclaredFields {
  readonly events?: unknown;
  readonly older?: unknown;
}

/**
 * Checks the fields a stream's `personalData` declares (the store checked the option is an object with
 * `keys`); throws `ConfigurationError` naming what to fix.
 */
export function resolveDeclaration(stream: DeclaringStream, option: DeclaredFields): Declaration {
  const where = `Stream ${stream.name}: \`personalData\``;
  const events = option.events;
  if (typeof events !== 'object' || events === null || Object.keys(events).length === 0) {
    throw new ConfigurationError(`${where}: expected \`events\` to declare the personal fields of at least one event type.`);
  }
  const today = new Map<string, ResolvedGroup[]>();
  for (const [type, declaration] of Object.entries(events)) {
    const reading = stream.types.get(type);
    if (!Object.hasOwn(stream.events, type) || reading === undefined) {
      throw new ConfigurationError(`${where}: \`events.${type}\` names no event type of the stream (${Object.keys(stream.events).join(', ')}).`);
    }
    const schema = reading.retired === undefined ? (stream.events[type] as z.ZodType) : undefined;
    today.set(type, resolveGroups(`${where}, \`events.${type}\``, stream, schema, declaration));
  }
  const older = new Map<string, Map<number, ResolvedGroup[]>>();
  for (const [type, versions] of Object.entries((option.older ?? {}) as Readonly<Record<string, unknown>>)) {
    const reading = stream.types.get(type);
    if (!Object.hasOwn(stream.events, type) || reading === undefined) {
      throw new ConfigurationError(`${where}: \`older.${type}\` names no event type of the stream.`);
    }
    const byVersion = new Map<number, ResolvedGroup[]>();
    for (const [key, declaration] of Object.entries((versions ?? {}) as Readonly<Record<string, unknown>>)) {
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
  return declarationOf(today, older);
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

function declarationOf(
  today: ReadonlyMap<string, ReadonlyArray<ResolvedGroup>>,
  older: ReadonlyMap<string, ReadonlyMap<number, ReadonlyArray<ResolvedGroup>>>,
): Declaration {
  const replacements = (groups: ReadonlyArray<ResolvedGroup> | undefined) =>
    new Map((groups ?? []).flatMap((group) => [...group.fields].map(([field, value]) => [field, { value }] as const)));
  const todays = new Map([...today].map(([type, groups]) => [type, replacements(groups)]));
  const olders = new Map([...older].map(([type, versions]) => [type, new Map([...versions].map(([v, groups]) => [v, replacements(groups)]))]));
  return {
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
