import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DynamoDBClient, DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ConfigurationError } from '../errors';
import type { AnyProjection, MultiSourceProjection, Projection } from '../projector';
import type { AnyEventStream, ReadModel } from '../store';

/** A change feed the commands look at (`status`, `checkpoints reset`). */
export interface FeedConfig {
  /** The events table whose stream it reads. */
  readonly table: string;
  /** Its consumer name (`ChangeFeedOptions.consumer`). */
  readonly consumer: string;
  /** Its DynamoCheckpointStore table. */
  readonly checkpointTable: string;
}

/** A projection the lifecycle commands run: a `Projection` or a `MultiSourceProjection`. */
export type OperableProjection = AnyProjection &
  Pick<Projection<AnyEventStream, never, unknown>, 'backfill' | 'parkedRows' | 'retryParked' | 'skipParked'> & {
    readonly readModel: ReadModel;
  };

/** What the commands work on, built by the config's `setup` with the clients the command line made. */
export interface ConfigModel {
  readonly streams?: Readonly<Record<string, AnyEventStream>> | undefined;
  readonly projections?:
    Readonly<Record<string, Projection<never, never, never> | MultiSourceProjection<never, never, never> | OperableProjection>> | undefined;
  readonly feeds?: Readonly<Record<string, FeedConfig>> | undefined;
  /** Outbox tables `tables create` makes (the projections' `outbox.table`). */
  readonly outboxTables?: ReadonlyArray<string> | undefined;
}

/** A `dynafold.config.ts`. */
export interface DynafoldConfig {
  /** DynamoDB client settings; `--endpoint`, `--region` and `--profile` override them. */
  readonly dynamodb?: DynamoDBClientConfig | undefined;
  /** Builds the streams, projections and feeds with the client the command line made. */
  readonly setup: (clients: {
    readonly client: DynamoDBClient;
    readonly streamsClient: () => DynamoDBStreamsClient;
  }) => ConfigModel | Promise<ConfigModel>;
}

/**
 * Declares a `dynafold.config.ts` for the `dynafold` command (types only: it returns its argument).
 *
 * @example
 * ```ts
 * export default defineConfig({
 *   dynamodb: { region: 'eu-west-1' },
 *   setup: ({ client }) => ({ streams: { orders: orderStream(client) }, projections: { summaries: summaryProjection(client) } }),
 * })
 * ```
 */
export function defineConfig(config: DynafoldConfig): DynafoldConfig {
  return config;
}

/** The names the command looks for, in order, from the working directory up. */
export const CONFIG_FILES = [
  'dynafold.config.ts',
  'dynafold.config.mts',
  'dynafold.config.cts',
  'dynafold.config.js',
  'dynafold.config.mjs',
  'dynafold.config.cjs',
];

/** The config file: `--config`, or the first of {@link CONFIG_FILES} from `cwd` up to the root. */
export function findConfig(cwd: string, explicit: string | undefined): string {
  if (explicit !== undefined) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new ConfigurationError(`No config file at ${path}: check --config, or run \`dynafold init\` to write one.`);
    return path;
  }
  for (let folder = resolve(cwd); ; folder = dirname(folder)) {
    for (const name of CONFIG_FILES) if (existsSync(join(folder, name))) return join(folder, name);
    if (dirname(folder) === folder) break;
  }
  throw new ConfigurationError(`No dynafold.config.ts found in ${resolve(cwd)} or above: run \`dynafold init\` to write one, or pass --config.`);
}

/**
 * Loads a config file with jiti (TypeScript and ESM without a build step, as ESLint and Nuxt load theirs).
 * `dynafold` and its subpaths resolve to this very package, so the config's streams and projections are
 * the classes the command runs.
 */
export async function loadConfig(path: string): Promise<DynafoldConfig> {
  const { createJiti } = await import('jiti');
  const root = join(__dirname, '..');
  const entry = (subpath: string) => join(root, subpath, 'index');
  const jiti = createJiti(__filename, {
    alias: {
      'dynafold/feed': entry('feed'),
      'dynafold/local': entry('local'),
      'dynafold/cdk': entry('cdk'),
      'dynafold/cli': entry('cli'),
      dynafold: join(root, 'index'),
    },
    interopDefault: true,
  });
  let loaded: unknown;
  try {
    loaded = await jiti.import(path, { default: true });
  } catch (error) {
    throw new ConfigurationError(`The config ${path} failed to load: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const config = loaded as Partial<DynafoldConfig> | undefined;
  if (typeof config !== 'object' || config === null || typeof config.setup !== 'function') {
    throw new ConfigurationError(
      `The config ${path} must export default defineConfig({ setup: ({ client }) => ({ streams, projections, feeds }) }).`,
    );
  }
  return config as DynafoldConfig;
}
