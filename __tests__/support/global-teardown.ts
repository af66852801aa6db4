/** The suite's jest globalTeardown: stops what `global-setup.ts` started. */
import type { DynamoLocal } from '../../lib/local/dynamo-local';
import { stopTestDynamo } from '../../lib/testing/global-setup';
import { EXTRA_LOCALS } from './global-setup';
import { WORKER_ENDPOINTS } from './worker-endpoint';

async function globalTeardown(): Promise<void> {
  const holder = globalThis as { [EXTRA_LOCALS]?: DynamoLocal[] };
  const extras = holder[EXTRA_LOCALS] ?? [];
  delete holder[EXTRA_LOCALS];
  delete process.env[WORKER_ENDPOINTS];
  await Promise.all([stopTestDynamo(), ...extras.map((local) => local.stop())]);
}

export default globalTeardown;
