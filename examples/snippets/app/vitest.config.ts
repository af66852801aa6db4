// The test kit's global setup starts one DynamoDB Local for the run
// and stops it at the end.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['dynafold/testing/vitest-global-setup'],
    testTimeout: 120_000,
  },
});
