import { ConfigurationError } from '../errors';
import { DynamoLocalDefaults, type DynamoLocal } from '../local';

/** The environment variable through which the global setups hand DynamoDB Local's endpoint to the tests. */
export const DYNAMODB_ENDPOINT = 'DYNAMODB_ENDPOINT';

/**
 * The environment variable listing, comma-separated, the DynamoDB Locals of a run started with
 * `startTestDynamo({ instances })`: test worker N uses the Nth (counted from 1, round robin).
 */
export const DYNAMODB_ENDPOINTS = 'DYNAMODB_ENDPOINTS';

/** Client settings that reach a DynamoDB Local: its endpoint, region and fixed local credentials. */
export type LocalClientConfig = DynamoLocal['clientConfig'];

/** Environment variables, `process.env` by default. @inline */
type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The settings of a client on the DynamoDB Local started by the kit's global setup (jest or vitest):
 * this test worker's own when the setup started one per worker (`DYNAMODB_ENDPOINTS`, chosen by
 * `JEST_WORKER_ID` or vitest's `VITEST_POOL_ID`), else `DYNAMODB_ENDPOINT`. Pass them to
 * `new DynamoDBClient(...)` (or a Streams client). Throws a `ConfigurationError` when neither is set,
 * i.e. the tests were not started through a setup.
 *
 * @example
 * ```ts
 * const client = new DynamoDBClient(localClientConfig())
 * ```
 */
export function localClientConfig(env: Environment = process.env): LocalClientConfig {
  const endpoint = workerEndpoint(env) ?? env[DYNAMODB_ENDPOINT];
  if (endpoint === undefined || endpoint === '') {
    throw new ConfigurationError(
      `${DYNAMODB_ENDPOINT} is not set: add dynafold/testing's global setup to your jest or vitest config ` +
        '(it starts DynamoDB Local and sets the variable), or set it to the endpoint of a running DynamoDB Local.',
    );
  }
  return { endpoint, region: DynamoLocalDefaults.region, credentials: { ...DynamoLocalDefaults.credentials } };
}

/** This worker's endpoint from `DYNAMODB_ENDPOINTS`; undefined when it is not set. Child processes inherit the worker id, so they agree. */
function workerEndpoint(env: Environment): string | undefined {
  const endpoints = (env[DYNAMODB_ENDPOINTS] ?? '').split(',').filter((endpoint) => endpoint !== '');
  if (endpoints.length === 0) return undefined;
  const worker = Number(env['JEST_WORKER_ID'] ?? env['VITEST_POOL_ID'] ?? '1');
  const index = Number.isInteger(worker) && worker >= 1 ? (worker - 1) % endpoints.length : 0;
  return endpoints[index];
}
