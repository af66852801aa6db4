import { ConfigurationError } from '../errors';
import { startDynamoLocal, type DynamoLocal, type DynamoLocalOptions } from '../local';
import { DYNAMODB_ENDPOINT, DYNAMODB_ENDPOINTS } from './environment';

/** The instances this process started, kept on `globalThis` because jest loads setup and teardown as separate modules. */
const RUNNING = Symbol.for('dynafold.testing.dynamoLocal');
type Holder = { [RUNNING]?: DynamoLocal[] | undefined };

/** Options of {@link startTestDynamo}: DynamoDB Local's own, and how many to start. */
export interface TestDynamoOptions extends DynamoLocalOptions {
  /**
   * How many DynamoDB Locals to start: one per test worker (jest's `globalConfig.maxWorkers`) keeps the
   * workers apart, since DynamoDB Local runs a database's transactions behind one lock and slows down as
   * tables pile up. Each takes a JVM (up to `heapMb` of heap). @defaultValue 1
   */
  readonly instances?: number | undefined;
}

/**
 * Starts DynamoDB Local for a test run and sets `DYNAMODB_ENDPOINT` to its endpoint, which the test
 * workers inherit; with `instances` above 1 it also sets `DYNAMODB_ENDPOINTS`, from which
 * `localClientConfig()` gives each worker its own. An endpoint already set (a DynamoDB Local you run
 * yourself) is used as it is and nothing is started. Resolves the function that stops what was started.
 *
 * @example
 * ```js
 * // jest-global-setup.js: one DynamoDB Local per jest worker
 * const { startTestDynamo } = require('dynafold/testing')
 * module.exports = (globalConfig) => startTestDynamo({ instances: globalConfig.maxWorkers })
 * ```
 */
export async function startTestDynamo(options: TestDynamoOptions = {}): Promise<() => Promise<void>> {
  const { instances = 1, ...local } = options;
  if (!Number.isInteger(instances) || instances < 1) {
    throw new ConfigurationError(`startTestDynamo: instances must be a whole number of at least 1, got ${String(instances)}.`);
  }
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  if (process.env[DYNAMODB_ENDPOINT] !== undefined) return async () => undefined;
  const started = await Promise.allSettled(Array.from({ length: instances }, () => startDynamoLocal(local)));
  const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(running.map((instance) => instance.stop()));
    throw failed.reason;
  }
  (globalThis as Holder)[RUNNING] = running;
  const [first = '', ...others] = running.map((instance) => instance.endpoint);
  process.env[DYNAMODB_ENDPOINT] = first;
  if (others.length > 0) process.env[DYNAMODB_ENDPOINTS] = [first, ...others].join(',');
  return stopTestDynamo;
}

/** Stops the DynamoDB Locals that {@link startTestDynamo} started in this process, if any, and unsets their endpoints. */
export async function stopTestDynamo(): Promise<void> {
  const holder = globalThis as Holder;
  const running = holder[RUNNING];
  if (running === undefined) return;
  delete holder[RUNNING];
  // Unset, so that a watch mode's next run starts fresh instances instead of reaching stopped ones.
  if (process.env[DYNAMODB_ENDPOINT] === running[0]?.endpoint) delete process.env[DYNAMODB_ENDPOINT];
  delete process.env[DYNAMODB_ENDPOINTS];
  await Promise.all(running.map((instance) => instance.stop()));
}
