// The kit's jest global setup and teardown, from the installed package: DynamoDB Local for the run.
module.exports = {
  testMatch: ['<rootDir>/*.test.js'],
  globalSetup: 'dynafold/testing/jest-global-setup',
  globalTeardown: 'dynafold/testing/jest-global-teardown',
  testTimeout: 180_000,
};
