/** `dynafold/testing/jest-global-teardown`: jest's `globalTeardown`, stopping what the global setup started. */
import { stopTestDynamo } from './global-setup';

async function jestGlobalTeardown(): Promise<void> {
  await stopTestDynamo();
}

// `module.exports` itself is the function: what jest requires, and typed so for every resolution.
export = jestGlobalTeardown;
