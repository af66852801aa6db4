/**
 * The package's entry points, from package.json's `exports`: the name a user imports (`dynafold/feed`) and
 * the source file behind it. The API reference covers exactly these.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(__dirname, '..', '..');

export interface EntryPoint {
  /** The import specifier: `dynafold`, `dynafold/feed`, `dynafold/testing/jest-global-setup`. */
  readonly name: string;
  /** The source file, relative to the repository: `lib/feed/index.ts`. */
  readonly source: string;
}

interface Manifest {
  readonly name: string;
  readonly exports: Record<string, unknown>;
}

/** `lib/<subpath>/index.ts`, or `lib/<subpath>.ts` for a file entry (`testing/jest-global-setup`). */
function sourceOf(subpath: string): string {
  const folder = subpath === '' ? 'lib/index.ts' : `lib/${subpath}/index.ts`;
  if (existsSync(join(root, folder))) return folder;
  const file = `lib/${subpath}.ts`;
  if (existsSync(join(root, file))) return file;
  throw new Error(`docs: the entry point "./${subpath}" of package.json has no source (${folder} or ${file})`);
}

export function entryPoints(): EntryPoint[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  return Object.keys(manifest.exports)
    .filter((key) => key !== './package.json')
    .map((key) => {
      const subpath = key.replace(/^\.\/?/, '');
      return { name: subpath === '' ? manifest.name : `${manifest.name}/${subpath}`, source: sourceOf(subpath) };
    });
}
