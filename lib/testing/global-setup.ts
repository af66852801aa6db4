import { startDynamoLocal, type DynamoLocal, type DynamoLocalOptions } from '../local';
import { DYNAMODB_ENDPOINT } from './environment';

/** The instance this process started, kept on `globalThis` because jest loads setup and teardown as separate modules. */
const RUNNING = Symbol.for('dynafold.testing.dynamoLocal');
type Holder = { [RUNNING]?: DynamoLocal };

/**
 * Starts DynamoDB Local once for a test run and sets `DYNAMODB_ENDPOINT` to its endpoint, which the test
 * workers inherit. An endpoint already set (a DynamoDB Local you run yourself) is used as it is and
 * nothing is started. Resolves the function that stops what was started.
 */
export async function startTestDynamo(options: DynamoLocalOptions = {}): Promise<() => Promise<void>> {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  if (process.env[DYNAMODB_ENDPOINT] !== undefined) return async () => undefined;
  const local = await startDynamoLocal(options);
  process.env[DYNAMODB_ENDPOINT] = local.endpoint;
  (globalThis as Holder)[RUNNING] = local;
  return stopTestDynamo;
}

/** Stops the DynamoDB Local that {@link startTestDynamo} started in this process, if any, and unsets its endpoint. */
export async function stopTestDynamo(): Promise<void> {
  const holder = globalThis as Holder;
  const local = holder[RUNNING];
  if (local === undefined) return;
  delete holder[RUNNING];
  // Unset, so that a watch mode's next run starts a fresh instance instead of reaching a stopped one.
  if (process.env[DYNAMODB_ENDPOINT] === local.endpoint) delete process.env[DYNAMODB_ENDPOINT];
  await local.stop();
}
