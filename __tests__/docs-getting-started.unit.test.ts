/**
 * Getting started shows every file of its app in full, in a block titled with the file's path
 * (```ts [src/orders.ts]), so that it reads the same on the site and on GitHub, which shows no included
 * files. Each block must be its file under examples/snippets/getting-started, word for word: those compile
 * in `npm test`, and `npm run docs:walk` runs the page's blocks in a fresh app.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..');
const snippets = join(root, 'examples', 'snippets', 'getting-started');
const page = readFileSync(join(root, 'docs', 'getting-started.md'), 'utf8');

/** The snippet behind a title: the app's tsconfig.json is kept as tsconfig.app.json, out of the repository's compiler's way. */
const sourceOf = (title: string) => join(snippets, title === 'tsconfig.json' ? 'tsconfig.app.json' : title);

/** The page's titled blocks, as title → content. */
function fileBlocks(): Map<string, string> {
  return new Map([...page.matchAll(/^```\w+ \[(.+)\]\n([\s\S]*?)^```$/gm)].map(([, title = '', body = '']) => [title, body]));
}

test('every file block of Getting started is its snippet, word for word', () => {
  const blocks = fileBlocks();
  expect(blocks.size).toBeGreaterThan(0);
  const differ = [...blocks].filter(([title, body]) => readFileSync(sourceOf(title), 'utf8') !== body).map(([title]) => title);
  // A block that differs: copy examples/snippets/getting-started/<file> into it (tsconfig.json is tsconfig.app.json).
  expect(differ).toEqual([]);
});

test('Getting started shows every file of its app, and includes none (GitHub would show no code)', () => {
  const shown = new Set([...fileBlocks().keys()].map(sourceOf));
  const files = readdirSync(snippets, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  expect(files.filter((file) => !shown.has(file)).map((file) => relative(snippets, file))).toEqual([]);
  expect(page).not.toMatch(/^<<< /m);
});
