/**
 * The package's build: ESM (`.mjs`) and CommonJS (`.cjs`) from one source, each with its own declarations
 * (`.d.mts`, `.d.cts`), one output file per source module. Dependencies and peers stay external, so an ESM
 * app loads their ESM builds (one zod per bundle) and a CommonJS app their CommonJS ones.
 */
import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsdown';

// tsdown is pinned at 0.23.4: later releases need rolldown-plugin-dts 0.30, whose parser (`yuku`) lists
// platform packages npm could not resolve, and `npm ci` then refuses the lock file. 0.23.4 with its own
// rolldown-plugin-dts 0.28.8 builds the same files. (Overriding the plugin alone under a later tsdown
// made the CommonJS build emit `import` statements.)

/** The package's version, which dynafold's spans and instruments name as their scope's (lib/telemetry/port/scope.ts). */
const version = JSON.stringify((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);

/** Every subpath of package.json's "exports", by output name. */
const entries = {
  index: 'lib/index.ts',
  'types/index': 'lib/types/index.ts',
  'feed/index': 'lib/feed/index.ts',
  'lambda/index': 'lib/lambda/index.ts',
  'outbox/index': 'lib/outbox/index.ts',
  'erasure/index': 'lib/erasure/index.ts',
  'local/index': 'lib/local/index.ts',
  'cdk/index': 'lib/cdk/index.ts',
  'cli/index': 'lib/cli/index.ts',
  'testing/index': 'lib/testing/index.ts',
  'testing/jest-global-setup': 'lib/testing/jest-global-setup.ts',
  'testing/jest-global-teardown': 'lib/testing/jest-global-teardown.ts',
  'testing/vitest-global-setup': 'lib/testing/vitest-global-setup.ts',
  'fastify/index': 'lib/fastify/index.ts',
  'express/index': 'lib/express/index.ts',
  'kms/index': 'lib/kms/index.ts',
  'reactions/index': 'lib/reactions/index.ts',
  'scheduler/index': 'lib/scheduler/index.ts',
};

export default defineConfig({
  entry: entries,
  // The `dynafold` command is CommonJS only: a bin needs one format, and its dependencies (commander,
  // cli-progress, cli-table3) are CommonJS packages.
  format: {
    // Which build a module is in, for the lookup of the optional `@opentelemetry/api` (lib/telemetry/port/otel-api.ts):
    // each build keeps the one way of finding it that bundlers follow and that survives its absence.
    esm: { define: { __DYNAFOLD_ESM__: 'true', __DYNAFOLD_VERSION__: version } },
    cjs: {
      define: { __DYNAFOLD_ESM__: 'false', __DYNAFOLD_VERSION__: version },
      entry: { ...entries, 'cli/main': 'lib/cli/main.ts' },
      // Lazy loads (the Streams client, the feed) as `require`: jest runs CommonJS without
      // `--experimental-vm-modules`, and there a dynamic `import()` throws.
      outputOptions: { dynamicImportInCjs: false },
    },
  },
  platform: 'node',
  target: 'node22',
  tsconfig: 'tsconfig.build.json',
  outDir: 'dist',
  unbundle: true,
  root: 'lib',
  // No source maps, of declarations or code: they would point at `lib/`, which the package does not ship (a
  // stack mapped through them names files an app does not have), and the output, a file per module, reads as it is.
  dts: { sourcemap: false },
  sourcemap: false,
  report: { gzip: false },
});
