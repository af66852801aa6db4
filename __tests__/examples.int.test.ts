import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..');
const run = promisify(execFile);

/** Runs an example as a user would (`npx tsx examples/...`), on the suite's DynamoDB Local. */
async function runExample(file: string, args: string[] = []): Promise<string> {
  return (await runExampleOutputs(file, args)).stdout;
}

async function runExampleOutputs(file: string, args: string[] = []): Promise<{ stdout: string; stderr: string }> {
  const { stdout, stderr } = await run(join(root, 'node_modules/.bin/tsx'), [join(root, 'examples', file), ...args], {
    cwd: root,
    env: { ...process.env, DYNAMODB_ENDPOINT: process.env['DYNAMODB_ENDPOINT'], AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    timeout: 170_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return { stdout, stderr };
}

// The examples are the README's promises: they must keep running, not only type-checking.
test('the quickstart (npm start) projects the workload two ways and checks every row against the store', async () => {
  const { stdout: output, stderr } = await runExampleOutputs('quickstart.ts');
  expect(output).toMatch(/every stream contiguous from v1: yes/);
  // The faults injected into the Lambda simulation are announced before the first one, each shown as a
  // line of the quickstart's own, never as the handler's JSON warnings (which read like a failure).
  const announced = output.indexOf('of row reads fail on purpose');
  expect(announced).toBeGreaterThan(-1);
  expect(output.slice(0, announced)).not.toMatch(/fault on purpose/);
  expect(`${output}${stderr}`).not.toMatch(/"level":"warn"/);
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

test('the poison example parks a row, reports metrics to Powertools (EMF), and replays the row after the fix', async () => {
  const output = await runExample('poison-and-metrics.ts');
  expect(output).toMatch(/invocation 1: 1 record\(s\) reported failed/);
  expect(output).toMatch(/invocation 2: 0 record\(s\) reported failed/);
  expect(output).toMatch(/"rowsParked":1/);
  expect(output).toMatch(/parked: \{"orderId":"o-2"\} at ItemAdded v2: price 900 over the limit/);
  expect(output).toMatch(/row o-2: total 900, items 1, v2/);
}, 180_000);

test('the Lambda handler example handles a real DynamoDB Streams event', async () => {
  await expect(runExample('lambda-handler.ts')).resolves.toEqual(expect.any(String));
}, 180_000);

test('the feed service in serve mode picks up writes that come after it started, and stays healthy', async () => {
  // node with tsx's loader, not the tsx command: that one waits 30 ms for its child to acknowledge a
  // signal and then kills it (exit 143), which a loaded machine fails to meet.
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'examples', 'feed-service.ts')], {
    cwd: root,
    env: { ...process.env, PORT: '0', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const address = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const match = /listening on (http:\/\/[\d.:]+)/.exec(line);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      void exited.then((code) => reject(new Error(`the service exited (${code}) before listening`)));
    });
    const health = async () =>
      (await fetch(`${address}/health`)).json() as Promise<{ state: string; processed: number; shards: Array<{ state: string }> }>;
    await until(async () => {
      const status = await health();
      return status.state === 'running' && status.shards.some((shard) => shard.state === 'reading');
    }, 'the feed to poll its empty table');

    for (let n = 0; n < 5; n++) expect((await fetch(`${address}/items`, { method: 'POST' })).status).toBe(201);
    await until(async () => (await health()).processed >= 5, 'the feed to process the five writes');
    const response = await fetch(`${address}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ state: 'running', processed: 5 });
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}, 180_000);

/** Starts an example service on a free port and resolves its address once it listens. */
async function serve(file: string): Promise<{ address: string; stop: () => Promise<number | null> }> {
  // node with tsx's loader, so SIGTERM reaches the service itself (see the feed service's test).
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'examples', file)], {
    cwd: root,
    // A busy machine (the other test worker on the same DynamoDB Local) can hold the feed back past 5 s.
    env: { ...process.env, PORT: '0', READ_YOUR_WRITES_MS: '30000', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    child.kill('SIGTERM');
    return exited;
  };
  try {
    const address = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const match = /listening on (http:\/\/[\d.:]+)/.exec(line);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      void exited.then((code) => reject(new Error(`${file} exited (${code}) before listening`)));
    });
    return { address, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The orders API of both service examples, over real HTTP: ETag / If-Match, Problem Details, read-your-writes. */
async function exerciseOrderApi(address: string): Promise<void> {
  const json = { 'content-type': 'application/json' };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${address}${path}`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });

  const health = async () => {
    const response = await fetch(`${address}/health`);
    return { status: response.status, body: (await response.json()) as { healthy: boolean; feed: { state: string } } };
  };
  await until(async () => (await health()).body.feed.state === 'running', 'the service to report its feed running');
  expect(await health()).toMatchObject({ status: 200, body: { healthy: true, feed: { state: 'running' } } });

  // Created, answered with the summary the change feed projected (read-your-writes) and its version as ETag.
  const created = await post('/orders', { orderId: 'o-1', customer: 'ada' });
  expect(created.status).toBe(201);
  expect(created.headers.get('etag')).toBe('"1"');
  expect(await created.json()).toMatchObject({ orderId: 'o-1', customer: 'ada', status: 'placed', items: 0, version: 1 });

  // The same order again: the append expected version 0 → 409 Conflict as Problem Details.
  const again = await post('/orders', { orderId: 'o-1', customer: 'bob' });
  expect(again.status).toBe(409);
  expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(await again.json()).toMatchObject({
    type: 'urn:dynafold:error:store.concurrency',
    title: 'ConcurrencyError',
    status: 409,
    code: 'store.concurrency',
    expectedVersion: 0,
    actualVersion: 1,
    instance: '/orders',
  });

  // If-Match with the current ETag: appended, and the answer is the updated row.
  const added = await post('/orders/o-1/items', { sku: 'tea', price: 4.5 }, { 'if-match': '"1"' });
  expect(added.status).toBe(200);
  expect(added.headers.get('etag')).toBe('"2"');
  expect(await added.json()).toMatchObject({ orderId: 'o-1', items: 1, total: 4.5, version: 2 });

  // If-Match with a stale ETag: 412 Precondition Failed, nothing appended.
  const stale = await post('/orders/o-1/items', { sku: 'cake', price: 3 }, { 'if-match': '"1"' });
  expect(stale.status).toBe(412);
  expect(await stale.json()).toMatchObject({ status: 412, code: 'store.concurrency', expectedVersion: 1, actualVersion: 2 });

  // A bad body: 400 with each field's path.
  const bad = await post('/orders/o-1/items', { sku: '', price: 'free' }, { 'if-match': '"2"' });
  expect(bad.status).toBe(400);
  const problem = (await bad.json()) as { type: string; code?: string; issues: Array<{ path: Array<string | number> }> };
  // The app's own schema refused it: a plain Bad Request, not the store's store.validation.
  expect(problem).toMatchObject({ type: 'about:blank', title: 'Bad Request' });
  expect(problem.code).toBeUndefined();
  expect(problem.issues.map((issue) => issue.path)).toEqual(expect.arrayContaining([['sku'], ['price']]));

  // A domain rule: 422 with the rule's message.
  const unplaced = await post('/orders/o-2/items', { sku: 'tea', price: 1 });
  expect(unplaced.status).toBe(422);

  // Reading at least a version: the row that reflects it, with its ETag.
  const read = await fetch(`${address}/orders/o-1?version=2`);
  expect(read.status).toBe(200);
  expect(read.headers.get('etag')).toBe('"2"');
  expect(await read.json()).toMatchObject({ items: 1, version: 2 });
  expect((await fetch(`${address}/orders/o-404`)).status).toBe(404);
}

for (const file of ['fastify-service.ts', 'express-service.ts']) {
  test(`${file} serves the orders API over HTTP: ETag / If-Match, 409 and 412 Problem Details, 400 with field paths, read-your-writes`, async () => {
    const service = await serve(file);
    try {
      await exerciseOrderApi(service.address);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 180_000);
}

/** Polls `condition` every 100 ms until it holds, failing after `timeoutMs`. */
async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
