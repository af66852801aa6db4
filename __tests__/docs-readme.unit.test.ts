/** The README is the front door, not the manual (its code blocks are checked with every page's: docs-code.unit.test.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');

test('the README stays a front door: at most 250 lines', () => {
  expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
});
