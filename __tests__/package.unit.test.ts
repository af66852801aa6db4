import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..');

/** Which modules a fresh Node process loads for an entry point (through tsx, from the sources). */
function loadedBy(entry: string): string[] {
  const script = `require(${JSON.stringify(join(root, entry))}); console.log(JSON.stringify(Object.keys(require.cache)))`;
  const output = execFileSync(join(root, 'node_modules/.bin/tsx'), ['-e', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(output.trim().split('\n').pop() as string) as string[];
}

test("import 'dynafold' never loads the Streams client, the feed or DynamoDB Local", () => {
  const loaded = loadedBy('lib/index.ts');
  expect(loaded.filter((path) => path.includes('client-dynamodb-streams'))).toEqual([]);
  expect(loaded.filter((path) => path.includes(`${join(root, 'lib/feed')}`) || path.includes(join(root, 'lib/local')))).toEqual([]);
});

test("'dynafold/feed' brings the Streams client with it", () => {
  expect(loadedBy('lib/feed/index.ts').some((path) => path.includes('client-dynamodb-streams'))).toBe(true);
});
