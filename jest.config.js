/** Tests run against embedded DynamoDB Local, one per jest worker, started in globalSetup. */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  moduleNameMapper: {
    '^dynafold$': '<rootDir>/lib/index.ts',
    '^dynafold/(.*)$': '<rootDir>/lib/$1/index.ts',
  },
  globalSetup: '<rootDir>/__tests__/support/global-setup.ts',
  globalTeardown: '<rootDir>/lib/testing/jest-global-teardown.ts',
  setupFiles: ['<rootDir>/__tests__/support/set-env.ts'],
  // A hang guard: the machine running the suite may be shared and slow.
  testTimeout: 120_000,
  maxWorkers: 2,
};
