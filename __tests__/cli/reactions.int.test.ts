/**
 * The `dynafold` command on a reaction, spawned as a user runs it: `tables create` makes the reactions
 * table with its timers' index, `backfill` reacts to history, `parked` lists, skips and retries the
 * reaction's parked instances, `status` shows its lag (its feed's) and the timers due and late.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { sweepTimers } from 'dynafold/reactions';
import { ExitCodes } from 'dynafold/cli';
import { localConfig, testClient, uniqueName } from '../support/dynamo';
import { reactionsShop } from './fixtures/reactions-shop';

jest.setTimeout(600_000);

const root = join(__dirname, '..', '..');
const client = testClient();
const tables = {
  CLI_R_EVENTS: uniqueName('cli-r-events'),
  CLI_R_REACTIONS: uniqueName('cli-r-reactions'),
  CLI_R_CHECKPOINTS: uniqueName('cli-r-checkpoints'),
};
const shop = reactionsShop(client, { events: tables.CLI_R_EVENTS, reactions: tables.CLI_R_REACTIONS });
afterAll(() => client.destroy());

/** Runs the command with the reactions' config and the worker's DynamoDB Local. */
function dynafold(args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    [
      '--require',
      require.resolve('tsx/cjs'),
      join(root, 'lib', 'cli', 'main.ts'),
      '--endpoint',
      localConfig().endpoint,
      '--config',
      'reactions.config.ts',
      ...args,
    ],
    {
      cwd: join(__dirname, 'fixtures'),
      env: { ...process.env, ...tables, NODE_NO_WARNINGS: '1', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Status {
  healthy: boolean;
  projections: Array<{ name: string; parked: number }>;
  reactions: Array<{ name: string; feeds: string[]; lagRecords: number | undefined }>;
  timers: Array<{ table: string; due: number; late: number }>;
}

test('tables, backfill, parked and status on a reaction and its timers', async () => {
  const created = await dynafold(['tables', 'create']);
  expect(created.code).toBe(ExitCodes.ok);
  const described = await client.send(new DescribeTableCommand({ TableName: tables.CLI_R_REACTIONS }));
  expect(described.Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['dueTimers']);
  for (const customer of ['ada', 'poison', 'bob', 'poison-2'])
    await shop.orders.append({ orderId: customer }, [{ type: 'OrderPlaced', data: { customer } }]);

  expect((await dynafold(['backfill', 'reserve'])).code).toBe(ExitCodes.ok);
  const listed = await dynafold(['parked', 'list', 'reserve']);
  expect(listed.stdout).toContain('{"source":"Order#poison"}');
  expect(listed.stdout).toContain('{"source":"Order#poison-2"}');

  const failing = await dynafold(['status', '--json']);
  expect(failing.code).toBe(ExitCodes.unhealthy);
  const status = JSON.parse(failing.stdout) as Status;
  expect(status.projections).toEqual([{ name: 'reserve', parked: 2 }]);
  expect(status.reactions).toEqual([expect.objectContaining({ name: 'reserve', feeds: ['reserve'], lagRecords: expect.any(Number) })]);
  expect(status.timers).toEqual([expect.objectContaining({ table: tables.CLI_R_REACTIONS, due: 2, late: 2 })]);

  // The event poison-2 is parked on is skipped on purpose: none of its effects happen, ever.
  expect((await dynafold(['parked', 'skip', 'reserve', '{"source":"Order#poison-2"}'])).code).toBe(ExitCodes.ok);
  expect((await dynafold(['parked', 'retry', 'reserve'], { CLI_POISON_FIXED: '1' })).code).toBe(ExitCodes.ok);
  expect((await sweepTimers({ timers: shop.timers, owners: [shop.reserve] })).fired).toBe(3);
  const after = JSON.parse((await dynafold(['status', '--json'])).stdout) as Status;
  expect(after.projections).toEqual([{ name: 'reserve', parked: 0 }]);
  expect(after.timers).toEqual([expect.objectContaining({ due: 0, late: 0 })]);
  expect((await shop.stock.read({ sku: 'pen' })).map((event) => event.data.orderId).sort()).toEqual(['ada', 'bob', 'poison']);
});
