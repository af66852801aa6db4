import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ConfigurationError } from '../errors';
import { projectionsByName, type ProjectionSet } from '../outcome';
import { DynamoLocalDefaults } from '../local';
import type { ConfigModel, FeedConfig, OperableProjection } from './config';
import { redirectAppClients, requireReachedClients } from './app-clients';
import { findConfig, loadConfig } from './load-config';
import { Output } from './output';

/** The options every command takes. */
export interface GlobalOptions {
  readonly config?: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly profile?: string;
  readonly json?: boolean;
}

/** Whether `endpoint` is on this machine: DynamoDB Local, most likely. */
function isLocalEndpoint(endpoint: unknown): endpoint is string {
  return typeof endpoint === 'string' && /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:|\/|$)/.test(endpoint);
}

/** Where the command's credentials come from, first match: the config, a profile, the environment, else none. */
function credentialsSource(settings: DynamoDBClientConfig): string | undefined {
  if (settings.credentials !== undefined) return "the config's dynamodb.credentials";
  if (settings.profile !== undefined) return `profile ${settings.profile}`;
  if ((process.env['AWS_ACCESS_KEY_ID'] ?? '') !== '') return 'AWS_ACCESS_KEY_ID';
  return undefined;
}

/**
 * The client settings: the config's, then the command line's. A local endpoint without credentials of
 * its own (config, profile or environment) gets DynamoDB Local's fixed test credentials.
 */
export function clientSettings(fromConfig: DynamoDBClientConfig | undefined, options: GlobalOptions): DynamoDBClientConfig {
  const settings: DynamoDBClientConfig = {
    ...fromConfig,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    // One try per request: a command answers now rather than retry an unreachable endpoint for seconds.
    maxAttempts: fromConfig?.maxAttempts ?? 2,
  };
  const fixed = isLocalEndpoint(settings.endpoint) && credentialsSource(settings) === undefined;
  return { region: 'us-east-1', ...settings, ...(fixed ? { credentials: { ...DynamoLocalDefaults.credentials } } : {}) };
}

/** A loaded config and its clients, for one command. */
export class CommandContext {
  private streams: DynamoDBStreamsClient | undefined;
  private named: Readonly<Record<string, OperableProjection>> | undefined;

  private constructor(
    readonly client: DynamoDBClient,
    private readonly settings: DynamoDBClientConfig,
    readonly model: ConfigModel,
    readonly out: Output,
    /** Where the credentials come from (see `credentialsSource`); `undefined`: the SDK's chain, or DynamoDB Local's fixed ones. */
    private readonly credentialsFrom: string | undefined,
  ) {}

  static async open(options: GlobalOptions, cwd = process.cwd()): Promise<CommandContext> {
    const config = await loadConfig(findConfig(cwd, options.config));
    const settings = clientSettings(config.dynamodb, options);
    // Told before the environment is given DynamoDB Local's credentials below.
    const credentialsFrom = credentialsSource({ ...config.dynamodb, ...(options.profile === undefined ? {} : { profile: options.profile }) });
    // Before setup: the streams it builds from the app's own modules may hold clients made there.
    redirectAppClients(settings, options.region !== undefined || config.dynamodb?.region !== undefined);
    const client = new DynamoDBClient(settings);
    const holder: { context?: CommandContext } = {};
    let model: ConfigModel;
    try {
      model = await config.setup({ client, streamsClient: () => (holder.context as CommandContext).streamsClient() });
    } catch (error) {
      client.destroy();
      throw new ConfigurationError(`The config's setup failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const context = new CommandContext(client, settings, model, new Output(options.json === true), credentialsFrom);
    holder.context = context;
    try {
      if (typeof settings.endpoint === 'string') await requireReachedClients(model, context.projections, client, settings.endpoint);
    } catch (error) {
      context.close();
      throw error;
    }
    return context;
  }

  /**
   * For a local endpoint, the access key the command uses and where it comes from: DynamoDB Local keeps a
   * database per access key (unless it runs with -sharedDb, as `dynafold local` does), so an app with
   * other keys has tables the command can't see. `undefined` for other endpoints.
   */
  async localCredentials(): Promise<string | undefined> {
    const { endpoint } = this.settings;
    if (!isLocalEndpoint(endpoint)) return undefined;
    const { accessKeyId } = await this.client.config.credentials();
    return (
      `${endpoint} with access key ${accessKeyId} (${this.credentialsFrom ?? "DynamoDB Local's fixed test credentials"}): DynamoDB Local keeps a ` +
      'database per access key unless it runs with -sharedDb, as `dynafold local` does; to see the tables of an app with other keys, set AWS_ACCESS_KEY_ID or dynamodb.credentials in the config to its key.'
    );
  }

  /** The Streams client, loaded on first use (only the feed commands need it). */
  streamsClient(): DynamoDBStreamsClient {
    if (this.streams === undefined) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { DynamoDBStreamsClient: Streams } = require('@aws-sdk/client-dynamodb-streams') as {
        DynamoDBStreamsClient: typeof DynamoDBStreamsClient;
      };
      this.streams = new Streams(this.settings);
    }
    return this.streams;
  }

  /** The config's projections by name: a list's under each one's `name`. */
  get projections(): Readonly<Record<string, OperableProjection>> {
    this.named ??= projectionsByName((this.model.projections ?? []) as ProjectionSet<OperableProjection>, 'The config', {
      warn: (message: unknown) => this.out.warn(String(message)),
    });
    return this.named;
  }

  projection(name: string): OperableProjection {
    const projection = this.projections[name];
    if (projection === undefined) throw new ConfigurationError(`Unknown projection ${name}: the config has ${listOf(this.projections)}.`);
    return projection;
  }

  feed(name: string): FeedConfig {
    const feed = this.model.feeds?.[name];
    if (feed === undefined) throw new ConfigurationError(`Unknown feed ${name}: the config has ${listOf(this.model.feeds)}.`);
    return feed;
  }

  close(): void {
    this.client.destroy();
    this.streams?.destroy();
  }
}

function listOf(record: Readonly<Record<string, unknown>> | undefined): string {
  const names = Object.keys(record ?? {});
  return names.length === 0 ? 'none' : names.join(', ');
}
