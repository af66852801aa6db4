import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ConfigurationError } from '../errors';
import { DynamoLocalDefaults } from '../local';
import type { ConfigModel, FeedConfig, OperableProjection } from './config';
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

/** The client settings: the config's, then the command line's. A local endpoint gets DynamoDB Local's fixed credentials if none are set. */
export function clientSettings(fromConfig: DynamoDBClientConfig | undefined, options: GlobalOptions): DynamoDBClientConfig {
  const settings: DynamoDBClientConfig = {
    ...fromConfig,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    // One try per request: a command answers now rather than retry an unreachable endpoint for seconds.
    maxAttempts: fromConfig?.maxAttempts ?? 2,
  };
  const endpoint = typeof settings.endpoint === 'string' ? settings.endpoint : undefined;
  const local = endpoint !== undefined && /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:|\/|$)/.test(endpoint);
  const configured = settings.credentials !== undefined || settings.profile !== undefined || process.env['AWS_ACCESS_KEY_ID'] !== undefined;
  return { region: 'us-east-1', ...settings, ...(local && !configured ? { credentials: { ...DynamoLocalDefaults.credentials } } : {}) };
}

/** A loaded config and its clients, for one command. */
export class CommandContext {
  private streams: DynamoDBStreamsClient | undefined;

  private constructor(
    readonly client: DynamoDBClient,
    private readonly settings: DynamoDBClientConfig,
    readonly model: ConfigModel,
    readonly out: Output,
  ) {}

  static async open(options: GlobalOptions, cwd = process.cwd()): Promise<CommandContext> {
    const config = await loadConfig(findConfig(cwd, options.config));
    const settings = clientSettings(config.dynamodb, options);
    const client = new DynamoDBClient(settings);
    const holder: { context?: CommandContext } = {};
    let model: ConfigModel;
    try {
      model = await config.setup({ client, streamsClient: () => (holder.context as CommandContext).streamsClient() });
    } catch (error) {
      client.destroy();
      throw new ConfigurationError(`The config's setup failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    holder.context = new CommandContext(client, settings, model, new Output(options.json === true));
    return holder.context;
  }

  /** The Streams client, loaded on first use (only the feed commands need it). */
  streamsClient(): DynamoDBStreamsClient {
    if (this.streams === undefined) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { DynamoDBStreamsClient: Streams } = require('@aws-sdk/client-dynamodb-streams') as {
        DynamoDBStreamsClient: typeof DynamoDBStreamsClient;
      };
      this.streams = new Streams(this.settings as NonNullable<ConstructorParameters<typeof DynamoDBStreamsClient>[0]>);
    }
    return this.streams;
  }

  projection(name: string): OperableProjection {
    const projection = this.model.projections?.[name];
    if (projection === undefined) throw new ConfigurationError(`Unknown projection ${name}: the config has ${listOf(this.model.projections)}.`);
    return projection as OperableProjection;
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
