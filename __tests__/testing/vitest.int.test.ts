/**
 * The kit under vitest, run for real: vitest in a child process with its global setup, which finds jest's
 * endpoint in DYNAMODB_ENDPOINT and uses it instead of starting a second DynamoDB Local (a JVM start is
 * most of a vitest run's time on a busy machine). `npm run test:vitest` runs the same without an
 * endpoint, where the setup starts and stops its own.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DYNAMODB_ENDPOINT } from 'dynafold/testing';

const root = join(__dirname, '../..');

test("vitest runs the kit's specs; its global setup hands the workers the endpoint it found", async () => {
  const { stdout } = await promisify(execFile)(join(root, 'node_modules/.bin/vitest'), ['run', '--config', 'vitest.config.mts'], {
    cwd: root,
    env: { ...process.env, CI: 'true', NO_COLOR: '1' },
    encoding: 'utf8',
  });
  expect(stdout).toMatch(/Tests\s+3 passed \(3\)/);
  expect(/vitest endpoint (\S+)/.exec(stdout)?.[1]).toBe(process.env[DYNAMODB_ENDPOINT]);
}, 120_000);
