/**
 * Writes what the docs site generates from the sources before VitePress builds it (none of it is
 * committed, see .gitignore), in two steps around TypeDoc (see docs:generate):
 *
 * - `entries`: one file per entry point of package.json for TypeDoc, named as users import it
 *   (`dynafold/feed`), so the API reference lists exactly the entry points;
 * - `pages`: the error codes, options and command line pages (which link to the API pages TypeDoc wrote).
 *
 *   npx tsx docs/scripts/generate.ts entries && npx typedoc && npx tsx docs/scripts/generate.ts pages
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { entryPoints, root } from './entry-points';
import { cliPage, errorCodesPage, optionsPage, shownPath } from './reference-pages';

const entriesFolder = join(root, 'docs', 'reference', 'api-entries');

/** `docs/reference/api-entries/dynafold/feed.ts`: everything `lib/feed/index.ts` exports, its default too. */
function writeEntryFiles(): void {
  rmSync(entriesFolder, { recursive: true, force: true });
  for (const entry of entryPoints()) {
    const file = join(entriesFolder, `${entry.name}.ts`);
    mkdirSync(dirname(file), { recursive: true });
    const source = relative(dirname(file), join(root, entry.source)).replace(/\.ts$/, '');
    const hasDefault = /^export default /m.test(readFileSync(join(root, entry.source), 'utf8'));
    const lines = [`/** \`${entry.name}\` */`, `export * from '${source}';`, ...(hasDefault ? [`export { default } from '${source}';`] : [])];
    writeFileSync(file, `${lines.join('\n')}\n`);
  }
}

function writePage(path: string, text: string): void {
  const file = join(root, 'docs', path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`docs: wrote ${shownPath(file)}`);
}

const step = process.argv[2];
if (step === 'entries') writeEntryFiles();
else if (step === 'pages') {
  writePage('reference/errors.md', errorCodesPage());
  void optionsPage().then((page) => writePage('reference/options.md', page));
  writePage('reference/cli.md', cliPage());
} else throw new Error(`docs: generate.ts takes "entries" or "pages", not ${String(step)}`);
