/**
 * Where the examples' DynamoDB is:
 * 1. `DYNAMODB_ENDPOINT` set: that endpoint (a DynamoDB Local you run, say), region from `AWS_REGION`
 *    or us-east-1, and fixed local credentials unless AWS credentials are in the environment;
 * 2. else AWS itself, when a region and credentials are configured (`AWS_REGION` plus
 *    `AWS_ACCESS_KEY_ID` or `AWS_PROFILE`);
 * 3. else an embedded, in-memory DynamoDB Local started here and stopped by `close()`.
 */
import {
  DynamoDBClient,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import { DynamoLocalDefaults, startDynamoLocal } from 'dynafold/local';

/** A DynamoDB to run against. */
export interface Connection {
  readonly client: DynamoDBClient;
  /** The settings of `client`, for other clients of the same DynamoDB (e.g. DynamoDB Streams). */
  readonly config: DynamoDBClientConfig;
  /** What it is, for the output. */
  readonly description: string;
  /** Whether tables are worth deleting afterwards (not for the embedded DynamoDB Local, which is thrown away). */
  readonly persistent: boolean;
  /** Destroys the client and stops the embedded DynamoDB Local, if one was started. */
  close(): Promise<void>;
}

export async function connect(
  env: NodeJS.ProcessEnv = process.env,
): Promise<Connection> {
  // The SDK warns about Node versions it will drop; the examples' output is no place for it.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] =
    'true';
  const region = env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'];
  const hasCredentials =
    env['AWS_ACCESS_KEY_ID'] !== undefined ||
    env['AWS_PROFILE'] !== undefined;

  const endpoint = env['DYNAMODB_ENDPOINT'];
  if (endpoint !== undefined) {
    const config: DynamoDBClientConfig = {
      endpoint,
      region: region ?? DynamoLocalDefaults.region,
      ...(env['AWS_ACCESS_KEY_ID'] === undefined
        ? { credentials: { ...DynamoLocalDefaults.credentials } }
        : {}),
    };
    return connection(
      config,
      `DynamoDB at ${endpoint} (DYNAMODB_ENDPOINT)`,
      true,
    );
  }
  if (region !== undefined && hasCredentials) {
    return connection({ region }, `AWS DynamoDB in ${region}`, true);
  }
  const started = Date.now();
  const local = await startDynamoLocal({
    jvmArgs: ['-XX:TieredStopAtLevel=1'],
  });
  const description = `embedded DynamoDB Local at ${local.endpoint} (in memory, started in ${((Date.now() - started) / 1000).toFixed(1)} s)`;
  return connection(local.clientConfig, description, false, () =>
    local.stop(),
  );
}

function connection(
  config: DynamoDBClientConfig,
  description: string,
  persistent: boolean,
  stop?: () => Promise<void>,
): Connection {
  const client = new DynamoDBClient(config);
  return {
    client,
    config,
    description,
    persistent,
    async close() {
      client.destroy();
      await stop?.();
    },
  };
}
