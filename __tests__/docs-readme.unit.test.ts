/**
 * The README cannot include files (GitHub renders it as it is), so each of its `ts` blocks must be a region
 * of a snippet under examples/snippets/readme, word for word: the snippets compile in `npm test`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');
const snippets = join(root, 'examples', 'snippets', 'readme');

/** Every `// #region name` … `// #endregion name` of the README's snippets, as the text between. */
function regions(): string[] {
  return readdirSync(snippets).flatMap((file) =>
    [...readFileSync(join(snippets, file), 'utf8').matchAll(/\/\/ #region ([\w-]+)\n([\s\S]*?)\/\/ #endregion \1\n/g)].map(([, , text]) =>
      (text ?? '').trimEnd(),
    ),
  );
}

test('every ts block of the README is a region of a compiled snippet', () => {
  const blocks = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map(([, text]) => (text ?? '').trimEnd());
  const known = regions();
  expect(blocks.length).toBeGreaterThan(0);
  expect(blocks.filter((block) => !known.includes(block))).toEqual([]);
});

test('the README stays a front door: at most 250 lines', () => {
  expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
});
