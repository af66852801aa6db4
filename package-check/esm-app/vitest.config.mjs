// The kit's vitest global setup, from the installed package: it starts DynamoDB Local for the run.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['*.test.ts'], globalSetup: ['dynafold/testing/vitest-global-setup'], testTimeout: 180_000 },
});
