/** `dynafold/testing/jest-global-teardown`: jest's `globalTeardown`, stopping what the global setup started. */
import { stopTestDynamo } from './global-setup';

async function jestGlobalTeardown(): Promise<void> {
  await stopTestDynamo();
}

// The default export: `module.exports` itself in the CommonJS build (what jest requires), `default` in the ESM one.
export default jestGlobalTeardown;
