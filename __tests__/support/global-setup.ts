/**
 * The suite's jest globalSetup: the test kit's, with a DynamoDB Local per jest worker. DynamoDB Local
 * runs a database's transactions behind one lock and slows down as tables and stream records pile up:
 * shared, one worker's contention tests made the other worker's appends time out on the lock ("too long
 * waiting for a lock") and its leases lapse. Imported by file: jest loads a global setup with Node's
 * resolution, where the package name would reach the built `dist`.
 */
import { startTestDynamo } from '../../lib/testing/global-setup';

async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  await startTestDynamo({ instances: globalConfig.maxWorkers });
}

export default globalSetup;
