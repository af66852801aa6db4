import type { z } from 'zod';
import { EventVersionTooNewError, UpcastError, type StoredEventRef } from '../../errors';
import { describeIssues, parsedData, zodIssues } from '../schema-issues';
import type { RetiredEventData, TypeReading } from './event-versions';

/**
 * Brings stored data that is not at today's version of its type to today's shape: parsed with its own
 * version's schema (a refusal is a broken item, `DecodeError`), then upcast one version at a time, each
 * result parsed with the next version's schema (a refusal or a throw is the definition's fault,
 * `UpcastError`). A retired type's data is handed over as stored; a version newer than today's goes
 * through `fromNewer`, or is an `EventVersionTooNewError`.
 */
export function toTodaysData(where: string, streamName: string, reading: TypeReading, raw: unknown, stored: StoredEventRef): unknown {
  if (reading.retired !== undefined) {
    return { storedType: stored.type, storedVersion: stored.storedVersion, data: raw } satisfies RetiredEventData;
  }
  if (stored.storedVersion > reading.version) {
    if (reading.fromNewer === undefined) throw new EventVersionTooNewError(stored, reading.version);
    const downcast = run(stored, `the \`fromNewer\` downcast from version ${stored.storedVersion} threw`, () =>
      (reading.fromNewer as NonNullable<TypeReading['fromNewer']>)(raw, stored.storedVersion),
    );
    return nextParsed(stored, reading.schema, downcast, `\`fromNewer\` returned data version ${reading.version}'s schema refuses`);
  }
  let data: unknown = raw;
  for (let version = stored.storedVersion; version < reading.version; version++) {
    const older = reading.older.get(version);
    if (older === undefined) throw new Error(`unreachable: versions are checked contiguous, and ${version} is missing`);
    if (version === stored.storedVersion) data = parsedData(where, streamName, { type: stored.type, schema: older.schema }, data, version);
    const upcast = run(stored, `the upcast from version ${version} threw`, () => older.upcast(data));
    const next = version + 1 === reading.version ? reading.schema : (reading.older.get(version + 1) as { schema: z.ZodType }).schema;
    data = nextParsed(stored, next, upcast, `the upcast from version ${version} returned data version ${version + 1}'s schema refuses`);
  }
  return data;
}

function run(stored: StoredEventRef, reason: string, upcast: () => unknown): unknown {
  try {
    return upcast();
  } catch (cause) {
    throw new UpcastError(stored, `${reason} (${cause instanceof Error ? cause.message : String(cause)})`, [], { cause });
  }
}

function nextParsed(stored: StoredEventRef, schema: z.ZodType, data: unknown, reason: string): unknown {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issues = zodIssues(parsed.error);
  throw new UpcastError(stored, `${reason}: ${describeIssues(issues)}`, issues, { cause: parsed.error });
}
