/**
 * The docs read on GitHub too, which includes no file: every code block of the Markdown a reader opens
 * holds its code, word for word the file (or region) its marker names, which compiles in `npm test`; no
 * include line is left. The pages the walk follows show every file of the app, whole, and no code that
 * does not come from it. `npm run docs:code` writes the blocks (docs/scripts/inline-code.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { inlined, markdownFiles } from '../docs/scripts/inline-code';
import { WALKED_PAGES } from '../docs/check/walked-pages';

const root = join(__dirname, '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

test('every marked block is its source, word for word (npm run docs:code writes them)', () => {
  const files = markdownFiles();
  expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/getting-started.md', 'docs/guides/observability.md']));
  const differ = files.filter((file) => inlined(read(file), file).text !== read(file));
  expect(differ).toEqual([]);
});

test('no Markdown file a reader opens includes a file (GitHub would show the include line, not the code)', () => {
  const including = markdownFiles().flatMap((file) =>
    read(file)
      .split('\n')
      .flatMap((line, index) => (/^<<< /.test(line) ? [`${file}:${index + 1}: ${line}`] : [])),
  );
  expect(including).toEqual([]);
});

/** A page's TypeScript blocks and its files (titled blocks), with whether a marker names their source; output shown as JSON is neither. */
function codeBlocks(page: string): Array<{ info: string; marked: boolean }> {
  const lines = page.split('\n');
  const blocks: Array<{ info: string; marked: boolean }> = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})(\w+)(.*)$/.exec(lines[i] as string);
    if (fence === null) continue;
    if (fence[2] !== 'ts' && !/\[.+\]/.test(fence[3] ?? '')) {
      i = lines.findIndex((line, index) => index > i && line === fence[1]);
      continue;
    }
    blocks.push({ info: `${fence[2]}${fence[3]}`, marked: (lines[i - 1] ?? '').startsWith('<!-- code: ') });
    i = lines.findIndex((line, index) => index > i && line === fence[1]);
  }
  return blocks;
}

test('the README and the pages the walk follows hold no TypeScript, and no file, that does not come from the sources', () => {
  const unmarked = ['README.md', ...WALKED_PAGES].flatMap((file) =>
    codeBlocks(read(file))
      .filter((block) => !block.marked)
      .map((block) => `${file}: ${block.info}`),
  );
  expect(unmarked).toEqual([]);
});

/** Every file under a folder of the repository, by its path from the root. */
const filesUnder = (folder: string) =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));

/** The path a file of the app has in the app: `examples/snippets/app/src/x.ts` and an earlier stage's `examples/snippets/app-stages/<page>/x` alike. */
const appPath = (source: string) =>
  source
    .replace(/^examples\/snippets\/app\//, '')
    .replace(/^examples\/snippets\/app-stages\/[\w-]+\//, '')
    .replace('tsconfig.app.json', 'tsconfig.json');

test('the pages the walk follows show every file of the app (and of its earlier stages), whole and titled with its path', () => {
  const files = [...filesUnder('examples/snippets/app'), ...filesUnder('examples/snippets/app-stages')];
  const shown = new Map<string, string>();
  for (const page of WALKED_PAGES) {
    for (const block of inlined(read(page), page).blocks) if (block.region === undefined) shown.set(block.source, block.info);
  }
  expect(files.filter((file) => !shown.has(file))).toEqual([]);
  const mistitled = [...shown].filter(([source, info]) => files.includes(source) && /\[(.+)\]/.exec(info)?.[1] !== appPath(source));
  expect(mistitled).toEqual([]);
});
