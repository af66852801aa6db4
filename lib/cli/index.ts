/**
 * `dynafold/cli`: what a `dynafold.config.ts` imports. The command itself is the package's `bin`
 * (`npx dynafold`). This file is the subpath's public API.
 */
export { defineConfig } from './config';
export type { DynafoldConfig, ConfigModel, ConfigProjection, FeedConfig, OperableProjection } from './config';
export { ExitCodes } from './exit-codes';
