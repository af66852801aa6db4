import { execFileSync } from 'node:child_process';
import { join, sep } from 'node:path';

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

test("import 'dynafold' never loads the KMS client; 'dynafold/kms' brings it", () => {
  expect(loadedBy('lib/index.ts').filter((path) => path.includes('client-kms') || path.includes(join(root, 'lib/kms')))).toEqual([]);
  expect(loadedBy('lib/kms/index.ts').some((path) => path.includes('client-kms'))).toBe(true);
});

test("import 'dynafold' and 'dynafold/reactions' never load EventBridge Scheduler's client; 'dynafold/scheduler' brings it", () => {
  const scheduler = (path: string) => path.includes('client-scheduler') || path.includes(join(root, 'lib/scheduler'));
  expect(loadedBy('lib/index.ts').filter(scheduler)).toEqual([]);
  expect(loadedBy('lib/reactions/index.ts').filter(scheduler)).toEqual([]);
  expect(loadedBy('lib/scheduler/index.ts').some((path) => path.includes('client-scheduler'))).toBe(true);
});

test("import 'dynafold' loads no reaction, workflow or timer; 'dynafold/reactions' loads neither the Streams client nor the feed", () => {
  expect(loadedBy('lib/index.ts').filter((path) => path.includes(join(root, 'lib/reactions')) || path.includes(join(root, 'lib/timers')))).toEqual(
    [],
  );
  const loaded = loadedBy('lib/reactions/index.ts');
  expect(loaded.filter((path) => path.includes('client-dynamodb-streams') || path.includes(join(root, 'lib/feed')))).toEqual([]);
});

test("'dynafold/feed' brings the Streams client with it", () => {
  expect(loadedBy('lib/feed/index.ts').some((path) => path.includes('client-dynamodb-streams'))).toBe(true);
});

test("'dynafold/local' loads the Streams client only when it reads a stream", () => {
  expect(loadedBy('lib/local/index.ts').filter((path) => path.includes('client-dynamodb-streams') || path.includes(join(root, 'lib/feed')))).toEqual(
    [],
  );
});

test("'dynafold/testing' loads neither jest nor vitest, nor the Streams client until a projection spec reads a stream", () => {
  const loaded = loadedBy('lib/testing/index.ts');
  expect(
    loaded.filter((path) => /node_modules\/(jest|@jest|vitest|@vitest|expect)\//.test(path) || path.includes('client-dynamodb-streams')),
  ).toEqual([]);
  expect(loadedBy('lib/index.ts').filter((path) => path.includes(join(root, 'lib/testing')))).toEqual([]);
});

test("'dynafold/fastify' and 'dynafold/express' load neither their framework, the feed nor the Streams client until a feed runs", () => {
  for (const entry of ['lib/fastify/index.ts', 'lib/express/index.ts']) {
    const loaded = loadedBy(entry);
    expect(loaded.filter((path) => path.includes('client-dynamodb-streams') || path.includes(join(root, 'lib/feed')))).toEqual([]);
    expect(loaded.filter((path) => /node_modules\/(fastify|express)\//.test(path))).toEqual([]);
  }
});

test("'dynafold/lambda' loads neither the Streams client nor the feed", () => {
  const loaded = loadedBy('lib/lambda/index.ts');
  expect(loaded.filter((path) => path.includes('client-dynamodb-streams') || path.includes(join(root, 'lib/feed')))).toEqual([]);
});

test("'dynafold/outbox' loads neither the Streams client nor the feed", () => {
  const loaded = loadedBy('lib/outbox/index.ts');
  expect(loaded.filter((path) => path.includes('client-dynamodb-streams') || path.includes(join(root, 'lib/feed')))).toEqual([]);
});

test("import 'dynafold' loads no outbox relay, a process of its own; 'dynafold/outbox' brings it", () => {
  const relay = (path: string) => path.startsWith(join(root, 'lib')) && path.endsWith(`${sep}relay.ts`);
  expect(loadedBy('lib/index.ts').filter(relay)).toEqual([]);
  expect(loadedBy('lib/outbox/index.ts').filter(relay)).toHaveLength(1);
});

test('the event store loads no read model, and the read models no projector', () => {
  expect(loadedBy('lib/store/index.ts').filter((path) => path.includes('read-model'))).toEqual([]);
  expect(loadedBy('lib/read-model/index.ts').filter((path) => path.includes(join(root, 'lib/projector')))).toEqual([]);
});

test("'dynafold/erasure' loads neither the Streams client, the feed nor the KMS client", () => {
  const loaded = loadedBy('lib/erasure/index.ts');
  expect(
    loaded.filter(
      (path) => /client-(dynamodb-streams|kms)/.test(path) || path.includes(join(root, 'lib/feed')) || path.includes(join(root, 'lib/kms')),
    ),
  ).toEqual([]);
});

test("'dynafold/types' loads no module: it holds types alone", () => {
  expect(loadedBy('lib/types/index.ts').filter((path) => path.startsWith(join(root, 'lib')) || path.includes('node_modules/@aws-sdk'))).toEqual([
    join(root, 'lib/types/index.ts'),
  ]);
});
