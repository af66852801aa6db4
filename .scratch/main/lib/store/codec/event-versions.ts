import { z } from 'zod';
import { ConfigurationError } from '../../errors';
import type { EventSchemas } from '../types';

/**
 * An older version of an event type: the schema its events were stored with, and the pure function
 * that turns data of this version (as its schema parsed it) into data of the next version. Build it
 * with {@link olderVersion}, which types `upcast`'s argument from the schema.
 */
export interface OlderEventVersion {
  readonly version: number;
  readonly schema: z.ZodType;
  readonly upcast: (data: unknown) => unknown;
}

/**
 * Version `version` of an event type: its schema and its upcast to version `version + 1`.
 *
 * @example
 * ```ts
 * olderVersion(1, z.object({ sku: z.string(), price: z.number() }), (v1) => ({ sku: v1.sku, priceCents: Math.round(v1.price * 100) }))
 * ```
 */
export function olderVersion<Schema extends z.ZodType>(
  version: number,
  schema: Schema,
  upcast: (data: z.output<Schema>) => unknown,
): OlderEventVersion {
  return { version, schema, upcast: upcast as (data: unknown) => unknown };
}

/**
 * How one event type of a stream has changed. Today's schema stays in the stream's `events` (so `type`
 * narrows `data` to today's shape); today's version is one above the highest of `older` (1 without them),
 * and it is stored on every event appended. Events stored before a type had versions are version 1.
 * A stored event is parsed with its own version's schema, upcast one version at a time, each result
 * parsed with the next version's schema and the last with today's.
 */
export interface EventTypeVersions<Today = unknown> {
  /** Versions 1 to n − 1 of the type, each with its schema and upcast to the next; no gaps. */
  readonly older?: ReadonlyArray<OlderEventVersion> | undefined;
  /** Names the type was stored under before a rename: their events read as this type. */
  readonly aliases?: ReadonlyArray<string> | undefined;
  /**
   * For a rolling deploy: turns data of a version newer than this code knows (`storedVersion`, written by
   * newer code) into today's data, which today's schema then checks.
   * @defaultValue none: such an event is an `EventVersionTooNewError`
   */
  readonly fromNewer?: ((data: unknown, storedVersion: number) => Today) | undefined;
}

/** The `versions` option of a stream: the history of some of its event types, by today's name. */
export type EventVersionsOf<Events extends EventSchemas> = {
  readonly [K in keyof Events & string]?: EventTypeVersions<z.input<Events[K]>>;
};

/** What a retired event's `data` holds: what was stored, unparsed, since no code produces it any more. */
export interface RetiredEventData {
  /** The type name it was stored under (today's, or an alias). */
  readonly storedType: string;
  /** The version of its type it was stored at. */
  readonly storedVersion: number;
  /** The stored data as it was written, not parsed by any schema. */
  readonly data: unknown;
}

const retired: unique symbol = Symbol('dynafold.retiredEvent');

/** The schema of a retired event type (see {@link retiredEvent}). */
export type RetiredEventSchema = z.ZodType<RetiredEventData> & { readonly [retired]: { readonly skip: boolean } };

/**
 * Stands in for the schema of an event type that is no longer appended, in a stream's `events`: its
 * stored events read as {@link RetiredEventData}, whatever version they were stored at, and an append of
 * one is refused. With `skip`, folds (`load`, `execute`, projections) never see them; reads
 * (`read`, `iterate`, the decoder) still return them, as versions stay contiguous.
 *
 * @example
 * ```ts
 * events: { ItemAdded, CouponApplied: retiredEvent({ skip: true }) }
 * ```
 */
export function retiredEvent(options: { readonly skip?: boolean | undefined } = {}): RetiredEventSchema {
  const schema = z.object({ storedType: z.string(), storedVersion: z.number(), data: z.unknown() });
  return Object.assign(schema, { [retired]: { skip: options.skip === true } });
}

/** How a stored type name reads: as which of today's types, at which version, from which older ones. */
export interface TypeReading {
  /** Today's name of the type. */
  readonly type: string;
  readonly schema: z.ZodType;
  /** Today's version, stored on appended events. */
  readonly version: number;
  /** Older versions by number: 1 to `version - 1`. */
  readonly older: ReadonlyMap<number, OlderEventVersion>;
  readonly fromNewer: ((data: unknown, storedVersion: number) => unknown) | undefined;
  /** Set for a retired type. */
  readonly retired: { readonly skip: boolean } | undefined;
}

/** Whether a schema stands for a retired type, and how. */
export function retiredOf(schema: z.ZodType): { readonly skip: boolean } | undefined {
  return (schema as Partial<RetiredEventSchema>)[retired];
}

/**
 * Checks a stream's `versions` against its `events` and indexes every name a stored event may carry
 * (today's names and aliases) by how it reads. Throws `ConfigurationError` saying what to fix.
 */
export function resolveTypeReadings(
  streamName: string,
  events: EventSchemas,
  versions: Readonly<Record<string, EventTypeVersions | undefined>> | undefined,
): ReadonlyMap<string, TypeReading> {
  const where = `Stream ${streamName}`;
  if (versions !== undefined && (typeof versions !== 'object' || versions === null)) {
    throw new ConfigurationError(`${where}: expected \`versions\` to map event types to their older versions and aliases.`);
  }
  for (const type of Object.keys(versions ?? {})) {
    if (!Object.hasOwn(events, type)) {
      throw new ConfigurationError(`${where}: \`versions.${type}\` names no event type; key it by a type of \`events\` (today's name).`);
    }
  }
  const readings = new Map<string, TypeReading>();
  for (const [type, schema] of Object.entries(events)) readings.set(type, typeReading(where, type, schema, versions?.[type]));
  for (const [type, definition] of Object.entries(versions ?? {})) {
    for (const alias of definition?.aliases ?? []) {
      if (typeof alias !== 'string' || alias === '') throw new ConfigurationError(`${where}: an alias of ${type} must be a non-empty string.`);
      const claimed = readings.get(alias);
      if (claimed !== undefined) {
        throw new ConfigurationError(
          claimed.type === alias
            ? `${where}: ${type} claims the alias ${alias}, which is an event type of its own: remove one of them.`
            : `${where}: ${claimed.type} and ${type} both claim the alias ${alias}: an old name reads as one type only.`,
        );
      }
      readings.set(alias, readings.get(type) as TypeReading);
    }
  }
  return readings;
}

function typeReading(where: string, type: string, schema: z.ZodType, definition: EventTypeVersions | undefined): TypeReading {
  const retiredType = retiredOf(schema);
  if (definition !== undefined && (typeof definition !== 'object' || definition === null)) {
    throw new ConfigurationError(`${where}: expected \`versions.${type}\` to be an object with \`older\`, \`aliases\` or \`fromNewer\`.`);
  }
  const older = olderVersions(`${where}, \`versions.${type}.older\``, definition?.older);
  if (retiredType !== undefined && (older.size > 0 || definition?.fromNewer !== undefined)) {
    throw new ConfigurationError(`${where}: ${type} is retired, so its events are never upcast: give it only \`aliases\`.`);
  }
  const fromNewer = definition?.fromNewer;
  if (fromNewer !== undefined && typeof fromNewer !== 'function') {
    throw new ConfigurationError(`${where}: expected \`versions.${type}.fromNewer\` to be a function.`);
  }
  return { type, schema, version: older.size + 1, older, fromNewer, retired: retiredType };
}

function olderVersions(where: string, older: ReadonlyArray<OlderEventVersion> | undefined): Map<number, OlderEventVersion> {
  const byVersion = new Map<number, OlderEventVersion>();
  if (older === undefined) return byVersion;
  if (!Array.isArray(older)) throw new ConfigurationError(`${where}: expected a list of olderVersion(version, schema, upcast).`);
  for (const entry of older as ReadonlyArray<Partial<OlderEventVersion> | undefined>) {
    const version = entry?.version;
    if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
      throw new ConfigurationError(`${where}: a version is ${String(version)}; versions are integers from 1.`);
    }
    if (typeof entry?.schema?.safeParse !== 'function')
      throw new ConfigurationError(`${where}: the schema of version ${version} is not a zod schema.`);
    if (typeof entry.upcast !== 'function')
      throw new ConfigurationError(`${where}: version ${version} needs an upcast function to version ${version + 1}.`);
    if (byVersion.has(version)) throw new ConfigurationError(`${where}: version ${version} is listed twice.`);
    byVersion.set(version, entry as OlderEventVersion);
  }
  for (let version = 1; version <= byVersion.size; version++) {
    if (!byVersion.has(version)) {
      throw new ConfigurationError(
        `${where}: version ${version} is missing, so events stored at it can't reach today's; list every version from 1 to ${byVersion.size}.`,
      );
    }
  }
  return byVersion;
}

/** An event to append: its type, its data (validated by the type's schema) and optional metadata. Retired types are not appended. */
export type NewEventOf<E extends EventSchemas> = {
  [K in keyof E & string]: E[K] extends RetiredEventSchema
    ? never
    : {
        readonly type: K;
        readonly data: z.input<E[K]>;
        readonly metadata?: Readonly<Record<string, unknown>> | undefined;
      };
}[keyof E & string];
