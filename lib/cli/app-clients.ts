import type { DynamoDBClient, DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../errors';
import type { ConfigModel, OperableProjection } from './config';

/**
 * Points the clients an app builds itself at the command's DynamoDB: a config that imports the app's
 * modules gets streams whose clients were made there (`new DynamoDBClient({})` at module level), which the
 * client `setup` hands out never reaches. The AWS SDK reads the environment when a client sends (not when
 * it is made), so a client with no endpoint, region or credentials of its own follows these.
 */
export function redirectAppClients(settings: DynamoDBClientConfig, regionGiven: boolean, env: NodeJS.ProcessEnv = process.env): void {
  const { endpoint, region, profile, credentials } = settings;
  if (typeof endpoint === 'string') {
    env['AWS_ENDPOINT_URL_DYNAMODB'] = endpoint;
    env['AWS_ENDPOINT_URL_DYNAMODB_STREAMS'] = endpoint;
  }
  // A region the command line or the config gave; else the command's default only where the environment names none.
  if (typeof region === 'string' && (regionGiven || (env['AWS_REGION'] ?? '') === '')) env['AWS_REGION'] = region;
  if (typeof profile === 'string') env['AWS_PROFILE'] = profile;
  // DynamoDB Local's fixed test credentials, when the command uses them: an app's own client then opens the same database.
  const fixed = credentials as { accessKeyId?: unknown; secretAccessKey?: unknown } | undefined;
  if (typeof fixed?.accessKeyId === 'string' && typeof fixed.secretAccessKey === 'string' && (env['AWS_ACCESS_KEY_ID'] ?? '') === '') {
    env['AWS_ACCESS_KEY_ID'] = fixed.accessKeyId;
    env['AWS_SECRET_ACCESS_KEY'] = fixed.secretAccessKey;
  }
}

/** A client of what the config built, and what it serves, in the config's words. */
interface PlacedClient {
  readonly what: string;
  readonly client: DynamoDBClient;
}

function placedClients(model: ConfigModel, projections: Readonly<Record<string, OperableProjection>>): PlacedClient[] {
  const placed: PlacedClient[] = [];
  const streams = [
    ...Object.entries(model.streams ?? {}).map(([key, stream]) => [`stream ${stream.name} (streams.${key})`, stream] as const),
    ...Object.entries(projections).flatMap(([name, projection]) =>
      projection.streams.map((stream) => [`stream ${stream.name} of projection ${name}`, stream] as const),
    ),
  ];
  for (const [what, stream] of streams) {
    // Told apart by shape: the config may load its own copy of the library, and a stream of one's own may have no client.
    const { client } = stream as { client?: DynamoDBClient };
    if (client !== undefined) placed.push({ what, client });
    if (stream.subjectKeys !== undefined)
      placed.push({ what: `the subject keys (${stream.subjectKeys.table}) of ${what}`, client: stream.subjectKeys.client });
  }
  for (const [name, projection] of Object.entries(projections))
    placed.push({ what: `the read model of projection ${name}`, client: projection.readModel.client });
  return placed;
}

/** The endpoint a client was given in code, as `protocol//host:port`; `undefined` when it has none of its own. */
async function ownEndpoint(client: DynamoDBClient): Promise<string | undefined> {
  const config = client.config as { isCustomEndpoint?: boolean; endpoint?: () => Promise<{ protocol: string; hostname: string; port?: number }> };
  if (config.isCustomEndpoint !== true || config.endpoint === undefined) return undefined;
  const { protocol, hostname, port } = await config.endpoint();
  return `${protocol}//${hostname}${port === undefined ? '' : `:${port}`}`;
}

const origin = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

/**
 * Refuses a config whose streams, read models or subject keys use a client that was given an endpoint of
 * its own, other than the command's `endpoint`: the command would read one database and write another.
 * Says which, and how to fix it.
 */
export async function requireReachedClients(
  model: ConfigModel,
  projections: Readonly<Record<string, OperableProjection>>,
  commandClient: DynamoDBClient,
  endpoint: string,
): Promise<void> {
  const astray: string[] = [];
  for (const { what, client } of placedClients(model, projections)) {
    if (client === commandClient) continue;
    const own = await ownEndpoint(client);
    if (own !== undefined && origin(own) !== origin(endpoint) && !astray.some((line) => line.startsWith(what))) astray.push(`${what} goes to ${own}`);
  }
  if (astray.length === 0) return;
  throw new ConfigurationError(
    `The command is pointed at ${endpoint}, but ${astray.join('; ')}: its DynamoDB client has an endpoint of its own. ` +
      "Build it in the config's setup with the client setup is handed (setup: ({ client }) => ...), or leave the endpoint out of " +
      'the client in code (the command points clients without one at --endpoint through AWS_ENDPOINT_URL_DYNAMODB).',
  );
}
