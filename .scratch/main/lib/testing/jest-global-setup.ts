/**
 * `dynafold/testing/jest-global-setup`: jest's `globalSetup`. Starts DynamoDB Local once per run and sets
 * `DYNAMODB_ENDPOINT`; pair it with `dynafold/testing/jest-global-teardown`.
 *
 * @example
 * ```js
 * // jest.config.js
 * module.exports = {
 *   globalSetup: 'dynafold/testing/jest-global-setup',
 *   globalTeardown: 'dynafold/testing/jest-global-teardown',
 * }
 * ```
 */
import { startTestDynamo } from './global-setup';

async function jestGlobalSetup(): Promise<void> {
  await startTestDynamo();
}

// The default export: `module.exports` itself in the CommonJS build (what jest requires), `default` in the ESM one.
export default jestGlobalSetup;
