import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// The guide's code comes from type-checked files, by region: each include must name a region that exists.
const guide = join(__dirname, '..', 'docs', 'guides', 'schema-evolution.md');

test('every include of the schema evolution guide names a file and a region in it', () => {
  const includes = [...readFileSync(guide, 'utf8').matchAll(/^<<< (\S+)#(\S+)$/gm)].map(([, file, region]) => ({
    file: file as string,
    region: region as string,
  }));
  expect(includes.length).toBeGreaterThan(0);
  const missing = includes.filter(({ file, region }) => {
    const source = readFileSync(join(dirname(guide), file), 'utf8');
    return !source.includes(`// #region ${region}\n`) || !source.includes(`// #endregion ${region}\n`);
  });
  expect(missing).toEqual([]);
});
