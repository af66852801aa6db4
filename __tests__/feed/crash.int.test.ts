import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localConfig, testClient } from '../support/dynamo';
import { createCheckpointStore, createStreamedTable, disableStream, waitFor, writeItems } from './support';

const client = testClient();
const root = join(__dirname, '..', '..');

afterAll(() => client.destroy());

function startConsumer(env: Record<string, string>): { child: ChildProcess; exited: Promise<number | null> } {
  // Node itself runs the consumer (tsx as a loader, not as a wrapper process), so SIGKILL reaches it.
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, 'fixtures', 'kill-consumer.ts')], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      if (code !== 0 && code !== null) process.stderr.write(stderr);
      resolve(code);
    }),
  );
  return { child, exited };
}

function lines(file: string): Array<{ pid: string; key: string }> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [pid = '', key = ''] = line.split(' ');
      return { pid, key };
    });
}

describe('a consumer process killed mid-batch', () => {
  it('loses nothing: the restarted process reads again from the last checkpoint (at least once)', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    const { table: checkpointTable } = await createCheckpointStore(client);
    const out = join(mkdtempSync(join(tmpdir(), 'dynafold-crash-')), 'out.txt');
    const env = { DYNAMODB_ENDPOINT: localConfig().endpoint, STREAM_ARN: streamArn, CHECKPOINT_TABLE: checkpointTable, OUT_FILE: out };
    const written = Array.from({ length: 60 }, (_, n) => `k:${n}`);
    await writeItems(client, table, 'k', 0, 60);

    const first = startConsumer(env);
    await waitFor(() => lines(out).length >= 22, 30_000, 'the first process to process some batches');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    // The process that wrote the lines is the one killed, and it is gone.
    expect(new Set(lines(out).map((line) => line.pid))).toEqual(new Set([String(first.child.pid)]));
    expect(() => process.kill(first.child.pid as number, 0)).toThrow();
    const firstCount = lines(out).length;
    expect(firstCount).toBeLessThan(60);

    await disableStream(client, table);
    const second = startConsumer(env);
    expect(await second.exited).toBe(0);

    const all = lines(out);
    expect(new Set(all.map((line) => line.key))).toEqual(new Set(written));
    const secondKeys = all.slice(firstCount).map((line) => line.key);
    // It resumes after a checkpoint: not from the start, and in order from there.
    expect(secondKeys[0]).not.toBe('k:0');
    const from = Number(secondKeys[0]?.split(':')[1]);
    expect(secondKeys).toEqual(written.slice(from));
  }, 60_000);
});
