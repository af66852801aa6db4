import { ConfigurationError } from '../errors';
import { namedProjections, type AnyProjection, type ProjectionSet, type ProjectionsByName } from '../outcome';
import { EventStream, type AnyEventStream } from '../store';
import { ReadModel } from '../read-model';
import type { Logger } from '../util';
import { BackgroundFeed, type FeedHealth, type ServiceFeedOptions } from './background-feed';
import type { ProblemOptions } from './problem';

/** What a service registers: its streams, read models and projections by name, and optionally a change feed. */
export interface ServiceOptions<
  Streams extends Record<string, AnyEventStream> = Record<string, AnyEventStream>,
  Models extends Record<string, ReadModel> = Record<string, ReadModel>,
  Projections extends ProjectionSet = ProjectionSet,
> {
  readonly streams?: Streams | undefined;
  readonly readModels?: Models | undefined;
  /** Projections the handlers wait for (read-your-writes) or rebuild: a list, each under its `name`. */
  readonly projections?: Projections | undefined;
  /** A change feed to run in the background while the service runs, stopped when it closes. */
  readonly feed?: ServiceFeedOptions<ProjectionSet, Record<string, AnyEventStream>> | undefined;
  /** A GET route answering the service's health: 200 while the feed runs (or without a feed), else 503. @defaultValue none */
  readonly healthPath?: string | undefined;
  /** How errors become Problem Details; `false` leaves error handling to you. @defaultValue `ServiceDefaults.problems` */
  readonly problems?: ProblemOptions | false | undefined;
}

/** What a service's health check answers. */
export interface ServiceHealth {
  readonly healthy: boolean;
  /** The background feed's health; absent without a feed. */
  readonly feed?: FeedHealth | undefined;
}

/** What the app is decorated with (`app.dynafold` in Fastify, `app.locals.dynafold` in Express). */
export interface DynafoldServices<
  Streams extends Record<string, AnyEventStream> = Record<string, AnyEventStream>,
  Models extends Record<string, ReadModel> = Record<string, ReadModel>,
  Projections extends ProjectionSet = ProjectionSet,
> {
  readonly streams: Streams;
  readonly readModels: Models;
  /** The projections by name (a list's under each one's `name`). */
  readonly projections: ProjectionsByName<Projections>;
  /** The service's health: the feed's state when one runs. */
  health(): ServiceHealth;
}

/** The services and the feed behind them, from validated options. */
export interface ResolvedServices {
  readonly services: DynafoldServices;
  readonly feed: BackgroundFeed | undefined;
}

/** Validates a service's options (a `ConfigurationError` names the first bad one) and builds what the app is decorated with. */
export function resolveServices(options: ServiceOptions, logger: Logger | undefined): ResolvedServices {
  const streams = requireEach('streams', options.streams, (value) => value instanceof EventStream, 'an EventStream');
  const readModels = requireEach('readModels', options.readModels, (value) => value instanceof ReadModel, 'a ReadModel');
  const projections = requireProjections(options.projections, logger);
  const { healthPath, feed: feedOptions } = options;
  if (healthPath !== undefined && (typeof healthPath !== 'string' || !healthPath.startsWith('/'))) {
    throw new ConfigurationError(`Expected \`healthPath\` to be a path starting with "/", got ${JSON.stringify(healthPath)}.`);
  }
  if (feedOptions !== undefined && (typeof feedOptions !== 'object' || feedOptions === null || typeof feedOptions.consumer !== 'object')) {
    throw new ConfigurationError('Expected `feed` to be runChangeFeed options with a `consumer` (a ChangeFeedConsumer or its options).');
  }
  const feed = feedOptions === undefined ? undefined : new BackgroundFeed(feedOptions, logger);
  const health = (): ServiceHealth => {
    const feedHealth = feed?.health();
    return feedHealth === undefined ? { healthy: true } : { healthy: feedHealth.healthy, feed: feedHealth };
  };
  return { services: { streams, readModels, projections, health }, feed };
}

function requireProjections(projections: ProjectionSet | undefined, logger: Logger | undefined): Record<string, AnyProjection> {
  if (projections === undefined) return {};
  if (typeof projections !== 'object' || projections === null) throw new ConfigurationError('Expected `projections` to list projections.');
  for (const [at, value] of Object.entries(projections)) {
    if (typeof (value as Partial<AnyProjection> | undefined)?.applyEntries !== 'function')
      throw new ConfigurationError(
        `Expected \`projections${Array.isArray(projections) ? `[${at}]` : `.${at}`}\` to be a Projection or MultiSourceProjection.`,
      );
  }
  return Object.fromEntries(namedProjections(projections, 'projections', logger));
}

function requireEach<T>(option: string, values: Record<string, T> | undefined, valid: (value: unknown) => boolean, what: string): Record<string, T> {
  if (values === undefined) return {};
  if (typeof values !== 'object' || values === null) throw new ConfigurationError(`Expected \`${option}\` to map names to values.`);
  for (const [name, value] of Object.entries(values)) {
    if (!valid(value)) throw new ConfigurationError(`Expected \`${option}.${name}\` to be ${what}.`);
  }
  return { ...values };
}
