import { ConfigurationError } from '../errors';
import { DynamoLocalDefaults, type DynamoLocal } from '../local';

/** The environment variable through which the global setups hand DynamoDB Local's endpoint to the tests. */
export const DYNAMODB_ENDPOINT = 'DYNAMODB_ENDPOINT';

/** Client settings that reach a DynamoDB Local: its endpoint, region and fixed local credentials. */
export type LocalClientConfig = DynamoLocal['clientConfig'];

/**
 * The settings of a client on the DynamoDB Local started by the kit's global setup (jest or vitest),
 * read from `DYNAMODB_ENDPOINT`: pass them to `new DynamoDBClient(...)` (or a Streams client). Throws a
 * `ConfigurationError` when the variable is not set, i.e. the tests were not started through a setup.
 *
 * @example
 * ```ts
 * const client = new DynamoDBClient(localClientConfig())
 * ```
 */
export function localClientConfig(env: Readonly<Record<string, string | undefined>> = process.env): LocalClientConfig {
  const endpoint = env[DYNAMODB_ENDPOINT];
  if (endpoint === undefined || endpoint === '') {
    throw new ConfigurationError(
      `${DYNAMODB_ENDPOINT} is not set: add dynafold/testing's global setup to your jest or vitest config ` +
        '(it starts DynamoDB Local and sets the variable), or set it to the endpoint of a running DynamoDB Local.',
    );
  }
  return { endpoint, region: DynamoLocalDefaults.region, credentials: { ...DynamoLocalDefaults.credentials } };
}
