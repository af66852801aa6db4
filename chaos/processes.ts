/** Starting chaos consumer processes and reading what they logged. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTableCommand, UpdateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoCheckpointStore } from 'dynafold/feed';
import { uniqueTableName } from './world';

/** A running consumer process. */
export interface Consumer {
  readonly child: ChildProcess;
  /** Resolves with the exit code (`null` when killed by a signal) and the signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Starts `chaos/consumer.ts` in its own node process (no wrapper process, so a signal reaches it). */
export function startConsumer(env: Record<string, string>): Consumer {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'consumer.ts')], {
    cwd: join(__dirname, '..'),
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, exited };
}

/** The lines a consumer logged, split into words. */
export function logLines(file: string): string[][] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => line.split(' '));
}

export async function createCheckpointTable(client: DynamoDBClient): Promise<string> {
  const table = uniqueTableName('chaos-checkpoints');
  await client.send(new CreateTableCommand(DynamoCheckpointStore.tableDefinition(table)));
  return table;
}

/** Disables the table's stream: its shard closes, and a feed drains it and ends. */
export async function disableStream(client: DynamoDBClient, table: string): Promise<void> {
  await client.send(new UpdateTableCommand({ TableName: table, StreamSpecification: { StreamEnabled: false } }));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * How long a freshly started consumer process may take to show its first work. Generous on purpose: it
 * compiles its TypeScript on start, and on a loaded machine that alone can take a minute. The wait only
 * gates the next step; nothing is asserted about how long it took.
 */
export const CONSUMER_START_MS = 180_000;

/** Polls `condition` until it holds; throws after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Resolves with the exit, or kills the process and throws after `timeoutMs`. */
export async function exitWithin(consumer: Consumer, timeoutMs: number, what: string) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      consumer.child.kill('SIGKILL');
      reject(new Error(`${what} did not exit within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([consumer.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The faults consumer processes injected: the last `F` line of each process, summed. */
export function consumerFaults(lines: ReadonlyArray<ReadonlyArray<string>>): Map<string, number> {
  const last = new Map<string, string>();
  for (const [kind, pid, json] of lines) if (kind === 'F' && pid !== undefined && json !== undefined) last.set(pid, json);
  const total = new Map<string, number>();
  for (const json of last.values()) {
    for (const [key, n] of Object.entries(JSON.parse(json) as Record<string, number>)) total.set(key, (total.get(key) ?? 0) + n);
  }
  return total;
}
