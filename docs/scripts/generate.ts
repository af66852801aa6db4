/**
 * Writes what the docs site generates from the sources before VitePress builds it (none of it is
 * committed, see .gitignore), in two steps around TypeDoc (see docs:generate):
 *
 * - `entries`: one file per entry point of package.json for TypeDoc, named as users import it
 *   (`dynafold/feed`), so the API reference lists exactly the entry points, each documented by its
 *   source's opening comment;
 * - `pages`: the error codes, options and command line pages (which link to the API pages TypeDoc wrote),
 *   the API reference's first page (every entry point and what it holds),
 *   and the API pages' code blocks formatted to the width of the site's code (see code-width.ts).
 *
 *   npx tsx docs/scripts/generate.ts entries && npx typedoc && npx tsx docs/scripts/generate.ts pages
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { formatCodeBlocks } from './format-code';
import { entryPoints, moduleComment, moduleSummary, root } from './entry-points';
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
    const comment = ['/**', ...`${moduleComment(entry)}\n@module`.split('\n').map((line) => ` * ${line}`.trimEnd()), ' */'];
    const lines = [...comment, `export * from '${source}';`, ...(hasDefault ? [`export { default } from '${source}';`] : [])];
    writeFileSync(file, `${lines.join('\n')}\n`);
  }
}

/** The API reference's first page: every entry point, what it holds, and which to import. */
function apiIndexPage(): string {
  return [
    '# API reference',
    '',
    'Generated from the TSDoc of the sources: a page per entry point of the package, named as you import it,',
    'and a page per name it exports. Most apps import `dynafold`; a subpath loads only what it needs (the',
    'Streams client only with `dynafold/feed`, the framework only with `dynafold/fastify` or',
    '`dynafold/express`). The [options and their defaults](../options.md) and the',
    '[error codes](../errors.md) have pages of their own.',
    '',
    ...entryPoints().map((entry) => `- [\`${entry.name}\`](./${entry.name}/index.md): ${moduleSummary(entry)}`),
    '',
  ].join('\n');
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
  writePage('reference/api/index.md', apiIndexPage());
  void formatCodeBlocks(join(root, 'docs', 'reference', 'api')).then((count) =>
    console.log(`docs: formatted ${count} code blocks of the API reference to the site's width`),
  );
} else throw new Error(`docs: generate.ts takes "entries" or "pages", not ${String(step)}`);
