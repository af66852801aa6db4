import { existsSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { ConfigurationError } from '../errors';
import type { DynafoldConfig } from './config';

/** The names the command looks for, in order, from the working directory up. */
export const CONFIG_FILES = [
  'dynafold.config.ts',
  'dynafold.config.mts',
  'dynafold.config.cts',
  'dynafold.config.js',
  'dynafold.config.mjs',
  'dynafold.config.cjs',
];

/** The config file: `--config`, or the first of {@link CONFIG_FILES} from `cwd` up to the root. */
export function findConfig(cwd: string, explicit: string | undefined): string {
  if (explicit !== undefined) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new ConfigurationError(`No config file at ${path}: check --config, or run \`dynafold init\` to write one.`);
    return path;
  }
  for (let folder = resolve(cwd); ; folder = dirname(folder)) {
    for (const name of CONFIG_FILES) if (existsSync(join(folder, name))) return join(folder, name);
    if (dirname(folder) === folder) break;
  }
  throw new ConfigurationError(`No dynafold.config.ts found in ${resolve(cwd)} or above: run \`dynafold init\` to write one, or pass --config.`);
}

/**
 * Loads a config file with jiti (TypeScript and ESM without a build step, as ESLint and Nuxt load theirs).
 * `dynafold` and its subpaths resolve to this very package, so the config's streams and projections are
 * the classes the command runs.
 */
export async function loadConfig(path: string): Promise<DynafoldConfig> {
  const { createJiti } = await import('jiti');
  const root = join(__dirname, '..');
  // The build this file belongs to (`.cjs` in the command's CommonJS build, `.ts` from the sources), so the
  // config's classes are the very ones the command runs, never the other format's copies.
  const extension = extname(__filename);
  const entry = (subpath: string) => join(root, subpath, `index${extension}`);
  const jiti = createJiti(__filename, {
    alias: {
      'dynafold/feed': entry('feed'),
      'dynafold/local': entry('local'),
      'dynafold/cdk': entry('cdk'),
      'dynafold/cli': entry('cli'),
      dynafold: join(root, `index${extension}`),
    },
    interopDefault: true,
  });
  let loaded: unknown;
  try {
    loaded = await jiti.import(path, { default: true });
  } catch (error) {
    throw new ConfigurationError(`The config ${path} failed to load: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const config = loaded as Partial<DynafoldConfig> | undefined;
  if (typeof config !== 'object' || config === null || typeof config.setup !== 'function') {
    throw new ConfigurationError(
      `The config ${path} must export default defineConfig({ setup: ({ client }) => ({ streams, projections, feeds }) }).`,
    );
  }
  return config as DynafoldConfig;
}
