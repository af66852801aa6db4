import { ConfigurationError } from '../errors';
import { warnDeprecated, type Logger } from '../util';
import type { AnyProjection } from './any-projection';

/**
 * Projections as the transports (`processBatch`, the Lambda handlers, the change feed), the services and
 * the command take them: a list, each under its `name`, the one name its outcomes, metrics, spans, logs,
 * `status` and spec failures use. A record whose keys are the projections' names is the same; one whose
 * keys differ from them is deprecated (each key then names its projection in outcomes and `status`, and
 * its `name` in spans, metrics and logs).
 */
export type ProjectionSet<P extends AnyProjection = AnyProjection> = ReadonlyArray<P> | Readonly<Record<string, P>>;

/** A set's projections under the name each is reported by: a list's under their `name`s, a record's under its keys. */
export type ProjectionsByName<P> = P extends ReadonlyArray<infer X> ? Readonly<Record<string, X>> : P;

/**
 * A set's projections, each with the name it is reported under. Two of a list with one name are a
 * `ConfigurationError`; a record key that is not its projection's name logs a deprecation once (to
 * `logger`, the console when none is given, nothing with `false`).
 */
export function namedProjections<P extends AnyProjection>(
  projections: ProjectionSet<P>,
  where: string,
  logger?: Logger | false,
): ReadonlyArray<readonly [string, P]> {
  if (isList(projections)) {
    const named = projections.map((projection) => [projection.name, projection] as const);
    const seen = new Set<string>();
    for (const [name] of named) {
      if (seen.has(name)) {
        throw new ConfigurationError(
          `${where}: two projections are named ${name}: give each its own \`name\` (it names its rows' checkpoints, outbox messages and progress).`,
        );
      }
      seen.add(name);
    }
    return named;
  }
  const entries = Object.entries(projections);
  for (const [key, projection] of entries) {
    if (logger !== false && key !== projection.name)
      warnDeprecated(
        logger,
        `projections: { ${key}: … }, a key other than the projection's name (${projection.name})`,
        `projections: [ … ], a list whose projections are named by their \`name\` option (name: '${key}')`,
      );
  }
  return entries;
}

/** A set's projections by the name each is reported under (see {@link namedProjections}). */
export function projectionsByName<P extends AnyProjection>(projections: ProjectionSet<P>, where: string, logger?: Logger | false): Record<string, P> {
  return Object.fromEntries(namedProjections(projections, where, logger));
}

/** Every projection of a set, list or record. */
export function projectionsOf<P extends AnyProjection>(projections: ProjectionSet<P>): ReadonlyArray<P> {
  return isList(projections) ? projections : Object.values(projections);
}

function isList<P>(projections: ReadonlyArray<P> | Readonly<Record<string, P>>): projections is ReadonlyArray<P> {
  return Array.isArray(projections);
}
