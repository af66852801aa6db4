// Under jest: the test kit's global setup and teardown start and stop
// DynamoDB Local (an ES module app's config is one too).
export default {
  globalSetup: 'dynafold/testing/jest-global-setup',
  globalTeardown: 'dynafold/testing/jest-global-teardown',
};
