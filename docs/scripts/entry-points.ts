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

/**
 * What an entry point's source file says of itself, its opening comment, as the module's documentation:
 * the subpath's name at its start and the sentence on the file being the public API are left out (the
 * reference says both).
 */
export function moduleComment(entry: EntryPoint): string {
  const text = readFileSync(join(root, entry.source), 'utf8');
  const comment = /^\/\*\*([\s\S]*?)\*\//.exec(text)?.[1] ?? '';
  const body = comment
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .replace(/This file is [^.]*\.\s*/g, '')
    .replace(/^\s*(`[\w/-]+`|dynafold):\s*/, '')
    .trim();
  return body.charAt(0).toUpperCase() + body.slice(1);
}

/**
 * The first sentences of an entry point's comment, up to a list or an example, on one line; with the list
 * too when the sentences alone say little (the root entry's "Event sourcing on DynamoDB." and its parts).
 */
export function moduleSummary(entry: EntryPoint): string {
  const [first = '', ...rest] =
    moduleComment(entry)
      .split(/\n\s*\n|\n@/)[0]
      ?.split(/\n- /) ?? [];
  const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
  if (first.length >= 60 || rest.length === 0) return oneLine(first);
  const items = rest.map((item) =>
    oneLine(item)
      .replace(/\.\s.*$/, '')
      .replace(/[;.]$/, ''),
  );
  return `${oneLine(first)} ${items.map((item, i) => (i === 0 ? item.charAt(0).toUpperCase() + item.slice(1) : item)).join('; ')}.`;
}
