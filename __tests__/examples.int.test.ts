import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..');
const run = promisify(execFile);

/** Runs an example as a user would (`npx tsx examples/...`), on the suite's DynamoDB Local. */
async function runExample(file: string, args: string[] = []): Promise<string> {
  const { stdout } = await run(join(root, 'node_modules/.bin/tsx'), [join(root, 'examples', file), ...args], {
    cwd: root,
    env: { ...process.env, DYNAMODB_ENDPOINT: process.env['DYNAMODB_ENDPOINT'], AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    timeout: 170_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

// The examples are the README's promises: they must keep running, not only type-checking.
test('the quickstart (npm start) projects the workload two ways and checks every row against the store', async () => {
  const output = await runExample('quickstart.ts');
  expect(output).toMatch(/every stream contiguous from v1: yes/);
  expect(output).toMatch(/OrderSummaryByFeed\s+\d+ rows equal the fold of their stream: yes/);
  expect(output).toMatch(/OrderSummaryByLambda\s+\d+ rows equal the fold of their stream: yes/);
  expect(output).toMatch(/^OK in/m);
}, 180_000);

test('the poller script reads the feed with for await and stops', async () => {
  await expect(runExample('poller-script.ts')).resolves.toEqual(expect.any(String));
}, 180_000);

test('the feed service answers /health and shuts down', async () => {
  await expect(runExample('feed-service.ts', ['--once'])).resolves.toEqual(expect.any(String));
}, 180_000);

test('the Lambda handler example handles a real DynamoDB Streams event', async () => {
  await expect(runExample('lambda-handler.ts')).resolves.toEqual(expect.any(String));
}, 180_000);
