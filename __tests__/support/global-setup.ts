/**
 * The suite's jest globalSetup: the test kit's (DynamoDB Local, `DYNAMODB_ENDPOINT`) and one more
 * DynamoDB Local for every further jest worker, so that no two workers share one. DynamoDB Local runs
 * every transaction of a database behind one lock and slows down as tables and stream records pile up:
 * shared, a worker's contention test made the other worker's appends time out on the lock ("too long
 * waiting for a lock") and its lease renewals run late. `set-env.ts` points each worker at its own.
 * Imported by file: jest loads a global setup with Node's resolution, where the package name would
 * reach the built `dist`.
 */
import { startDynamoLocal, type DynamoLocal } from '../../lib/local/dynamo-local';
import { startTestDynamo } from '../../lib/testing/global-setup';
import { WORKER_ENDPOINTS } from './worker-endpoint';

/** The extra instances, kept on `globalThis` because jest loads setup and teardown as separate modules. */
export const EXTRA_LOCALS = Symbol.for('dynafold.tests.extraDynamoLocals');
type Holder = { [EXTRA_LOCALS]?: DynamoLocal[] };

async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const external = process.env['DYNAMODB_ENDPOINT'] !== undefined;
  await startTestDynamo();
  // A DynamoDB Local run by hand is shared as it is: nothing more is started.
  if (external) return;
  const extras = await Promise.all(Array.from({ length: Math.max(0, globalConfig.maxWorkers - 1) }, () => startDynamoLocal()));
  (globalThis as Holder)[EXTRA_LOCALS] = extras;
  process.env[WORKER_ENDPOINTS] = [process.env['DYNAMODB_ENDPOINT'], ...extras.map((local) => local.endpoint)].join(',');
}

export default globalSetup;
