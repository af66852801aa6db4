import { execFileSync, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { eventsTableDefinition } from 'dynafold';
import { DynamoLocalStartError, startDynamoLocal } from 'dynafold/local';
import { orderStream } from '../support/orders';

/** Process ids whose command line runs DynamoDB Local on `port` (the JVM and its watchdog shell). */
function processesOnPort(port: number): number[] {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar -inMemory -port ${port}$`], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** Whether `pid` is a live process (an exited one waiting to be reaped does not count). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Polls `check` until it holds or `timeoutMs` passes. */
async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

test('startDynamoLocal starts a second instance on a free port, and stop() ends its JVM', async () => {
  const local = await startDynamoLocal({ jvmArgs: ['-XX:TieredStopAtLevel=1'], heapMb: 256 });
  const client = new DynamoDBClient({ ...local.clientConfig, maxAttempts: 1 });
  let jvms: number[];
  try {
    expect(local.endpoint).toBe(`http://127.0.0.1:${local.port}`);
    expect(local.endpoint).not.toBe(process.env['DYNAMODB_ENDPOINT']);
    jvms = processesOnPort(local.port);
    expect(jvms.length).toBeGreaterThan(0);

    await client.send(new CreateTableCommand(eventsTableDefinition('local-events')));
    const Orders = orderStream(client, 'local-events');
    await Orders.append('o-1', [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
    expect(await Orders.version('o-1')).toBe(1);
    expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual(['local-events']); // its own, in-memory database
  } finally {
    await local.stop();
    client.destroy();
  }
  expect(processesOnPort(local.port)).toEqual([]);
  expect(jvms.some(isRunning)).toBe(false);
  const after = new DynamoDBClient({ ...local.clientConfig, maxAttempts: 1 });
  await expect(after.send(new ListTablesCommand({}))).rejects.toThrow();
  after.destroy();
  await expect(local.stop()).resolves.toBeUndefined(); // twice is fine
});

test('a JVM that fails to start is reported at once, not after the start timeout', async () => {
  const started = Date.now();
  const attempt = startDynamoLocal({ jvmArgs: ['-XX:+NoSuchOption'] });
  await expect(attempt).rejects.toBeInstanceOf(DynamoLocalStartError);
  await expect(attempt).rejects.toThrow(/NoSuchOption/);
  expect(Date.now() - started).toBeLessThan(10_000);
});

test('a port in use is refused instead of answering from another server', async () => {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  try {
    const started = Date.now();
    const attempt = startDynamoLocal({ port });
    await expect(attempt).rejects.toBeInstanceOf(DynamoLocalStartError);
    await expect(attempt).rejects.toMatchObject({ code: 'local.start' });
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    server.close();
  }
  // the DynamoDB Local of this test run is on a port too
  const taken = Number(new URL(process.env['DYNAMODB_ENDPOINT'] as string).port);
  await expect(startDynamoLocal({ port: taken })).rejects.toThrow(/in use/);
});

test('a process that started DynamoDB Local and was SIGKILLed leaves no JVM behind', async () => {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, '..', 'support', 'local-child.ts')], {
    cwd: join(__dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line !== undefined) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`the child exited with ${String(code)} before starting DynamoDB Local`)));
  });
  const jvms = processesOnPort(port);
  expect(jvms.length).toBeGreaterThan(0);

  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  expect(await eventually(() => processesOnPort(port).length === 0, 10_000)).toBe(true);
  expect(await eventually(() => jvms.every((pid) => !isRunning(pid)), 10_000)).toBe(true);
});
