/**
 * The vitest run of the test kit's own example (`npm run test:vitest`): the kit's vitest global setup
 * starts DynamoDB Local, and `dynafold` resolves to the sources as in jest.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const lib = fileURLToPath(new URL('./lib/', import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^dynafold$/, replacement: `${lib}index.ts` },
      { find: /^dynafold\/(.*)$/, replacement: `${lib}$1/index.ts` },
    ],
  },
  test: {
    include: ['__tests__/vitest/**/*.vitest.ts'],
    globalSetup: ['./lib/testing/vitest-global-setup.ts'],
    testTimeout: 60_000,
  },
});
