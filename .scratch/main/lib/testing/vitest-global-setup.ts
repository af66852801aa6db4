/**
 * `dynafold/testing/vitest-global-setup`: vitest's `globalSetup`. Starts DynamoDB Local once per run and
 * sets `DYNAMODB_ENDPOINT`, which the test workers inherit; `teardown` stops it at the end. Named
 * exports, which vitest finds whether it loads this file as CommonJS or ESM.
 *
 * @example
 * ```ts
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['dynafold/testing/vitest-global-setup'] } })
 * ```
 */
import { startTestDynamo, stopTestDynamo } from './global-setup';

export async function setup(): Promise<void> {
  await startTestDynamo();
}

export async function teardown(): Promise<void> {
  await stopTestDynamo();
}
