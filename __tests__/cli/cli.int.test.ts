/**
 * The `dynafold` command, spawned as a user runs it, against DynamoDB Local with the config in
 * fixtures/: tables, backfill interrupted with SIGINT and resumed, parked rows, status while a feed runs
 * and after it stops, tail, replay, checkpoints, forget, init, and bad input (one line, a documented exit code).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { Command, Option } from 'commander';
import { EventStream, ReadModel, eventsTableDefinition } from 'dynafold';
import { LocalKeyProvider, SubjectKeys } from 'dynafold/erasure';
import { ExitCodes } from 'dynafold/cli';
import { ChangeFeedConsumer, DynamoCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { z } from 'zod';
import { program } from '../../lib/cli/main';
import { waitFor, localFeed } from '../feed/support';
import { localConfig, testClient, uniqueName } from '../support/dynamo';
import { readStreamRecords } from '../support/stream-records';

/** A hang guard, not a time limit: every command is a process of its own, and a loaded machine is slow to start one. */
const HANG_GUARD_MS = 600_000;
jest.setTimeout(HANG_GUARD_MS);

const root = join(__dirname, '..', '..');
const fixtures = join(__dirname, 'fixtures');
const client = testClient();
const tables = {
  CLI_EVENTS_TABLE: uniqueName('cli-events'),
  CLI_VIEWS_TABLE: uniqueName('cli-views'),
  CLI_CHECKPOINT_TABLE: uniqueName('cli-checkpoints'),
};
/** The fixture config's stream, on `table`. */
const orderStream = (table: string) =>
  new EventStream({
    client,
    table,
    name: 'Order',
    streamId: ['orderId'],
    events: { OrderPlaced: z.object({ customer: z.string() }), ItemAdded: z.object({ price: z.number() }) },
  });
const orders = orderStream(tables.CLI_EVENTS_TABLE);

afterAll(() => client.destroy());

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Spawns the command (Node with tsx as a loader, so signals reach it); `onStderr` sees its diagnostics as they come.
 * It gets `--endpoint` of the worker's DynamoDB Local unless `endpoint` is false, and `env` over `environment`
 * (this process's by default).
 */
function dynafold(
  args: ReadonlyArray<string>,
  options: {
    cwd?: string;
    endpoint?: false;
    environment?: NodeJS.ProcessEnv;
    env?: Record<string, string>;
    /** Stops the command (SIGINT) when aborted. */
    signal?: AbortSignal;
    onStderr?: (text: string, kill: () => void) => void;
    onStdout?: (text: string, kill: () => void) => void;
  } = {},
): Promise<Run> {
  const child = spawn(
    process.execPath,
    [
      '--require',
      require.resolve('tsx/cjs'),
      join(root, 'lib', 'cli', 'main.ts'),
      ...(options.endpoint === false ? [] : ['--endpoint', localConfig().endpoint]),
      ...args,
    ],
    {
      cwd: options.cwd ?? fixtures,
      env: { ...(options.environment ?? process.env), ...tables, NODE_NO_WARNINGS: '1', NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.signal === undefined ? {} : { signal: options.signal, killSignal: 'SIGINT' as const }),
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    options.onStdout?.(stdout, () => child.kill('SIGINT'));
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    options.onStderr?.(stderr, () => child.kill('SIGINT'));
  });
  return new Promise((resolve, reject) => {
    // Aborting emits an AbortError, then the exit it caused.
    child.once('error', (error) => options.signal?.aborted !== true && reject(error));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Human output with what changes from run to run (times, durations, rates, sequence numbers) taken out. */
const stripped = (text: string) =>
  text
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
    .replace(/\d+ s\b/g, '<age>')
    .replace(/shardId-[\w-]+/g, '<shard>');

const json = <T>(run: Run): T => JSON.parse(run.stdout) as T;

async function appendOrders(from: number, to: number): Promise<void> {
  for (let n = from; n < to; n++) {
    await orders.append({ orderId: `o${n}` }, [
      { type: 'OrderPlaced', data: { customer: n === 3 ? 'poison' : `c${n}` } },
      { type: 'ItemAdded', data: { price: n } },
    ]);
  }
}

test('bad input is one line on stderr and a documented exit code, never a stack trace', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'dynafold-cli-'));
  const noConfig = await dynafold(['status'], { cwd: empty });
  expect(noConfig.code).toBe(ExitCodes.usage);
  expect(noConfig.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(/^✖ configuration: No dynafold\.config\.ts found in .* run `dynafold init`/),
  ]);

  writeFileSync(join(empty, 'broken.config.ts'), 'export default {');
  const broken = await dynafold(['--config', 'broken.config.ts', 'status'], { cwd: empty });
  expect(broken.code).toBe(ExitCodes.usage);
  expect(broken.stderr.trim().split('\n')).toHaveLength(1);
  expect(broken.stderr).toMatch(/^✖ configuration: The config .*broken\.config\.ts failed to load/);

  const unknown = await dynafold(['backfill', 'nope']);
  expect(unknown.code).toBe(ExitCodes.usage);
  expect(unknown.stderr.trim()).toBe('✖ configuration: Unknown projection nope: the config has summaries.');

  const unreachable = await dynafold(['status', '--endpoint', 'http://127.0.0.1:9']);
  expect(unreachable.code).toBe(ExitCodes.failed);
  expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
  expect(unreachable.stderr).not.toMatch(/\n\s+at /);

  const usage = await dynafold(['backfill']);
  expect(usage.code).toBe(ExitCodes.usage);
  expect(usage.stderr).toMatch(/missing required argument 'projection'/);

  for (const command of ['retry', 'skip']) {
    const notAKey = await dynafold(['parked', command, 'summaries', '{"nope":1}']);
    expect({ command, code: notAKey.code }).toEqual({ command, code: ExitCodes.usage });
    expect(notAKey.stderr.trim()).toMatch(/^✖ store\.validation: Key \w+ of \w+: field `orderId` must be a non-empty string/);
  }
});

test(
  'a rebuild whose fold throws while the scan still lists is one line on stderr and exit 1',
  async () => {
    const env = {
      CLI_EVENTS_TABLE: uniqueName('cli-broken-events'),
      CLI_VIEWS_TABLE: uniqueName('cli-broken-views'),
      CLI_CHECKPOINT_TABLE: uniqueName('cli-broken-checkpoints'),
    };
    expect((await dynafold(['tables', 'create'], { env })).code).toBe(ExitCodes.ok);
    const broken = new EventStream({
      client,
      table: env.CLI_EVENTS_TABLE,
      name: 'Order',
      streamId: ['orderId'],
      events: { OrderPlaced: z.object({ customer: z.string() }) },
    });
    for (let n = 0; n < 20; n++) await broken.append({ orderId: `o${n}` }, [{ type: 'OrderPlaced', data: { customer: `c${n}` } }]);
    // Items of another kind, large: the scan reads several 1 MB pages, so it still lists when the first fold fails.
    for (let n = 0; n < 12; n++) {
      await client.send(
        new PutItemCommand({ TableName: env.CLI_EVENTS_TABLE, Item: { pk: { S: `Other#${n}` }, sk: { S: 'x' }, blob: { S: 'x'.repeat(380_000) } } }),
      );
    }
    // Rows to rebuild (a rebuild re-derives rows that exist), then a fold that throws on each of them.
    expect((await dynafold(['backfill', 'summaries', '--json'], { env })).code).toBe(ExitCodes.ok);
    const failed = await dynafold(['rebuild', 'summaries', '--segments', '1'], { env: { ...env, CLI_EVOLVE_BROKEN: '1' } });
    expect(failed.code).toBe(ExitCodes.failed);
    expect(failed.stderr).toBe('✖ Error: evolve is broken\n');
  },
  HANG_GUARD_MS,
);

test(
  'local runs DynamoDB Local with one shared database until Ctrl-C',
  async () => {
    let endpoint: string | undefined;
    const port = await freePort();
    const run = dynafold(['local', '--port', String(port)], {
      onStdout: (text, kill) => {
        if (endpoint !== undefined) return; // one Ctrl-C
        endpoint = /DynamoDB Local at (http:\/\/\S+)/.exec(text)?.[1];
        if (endpoint !== undefined) kill();
      },
    });
    const stopped = await run;
    expect(endpoint).toBe(`http://127.0.0.1:${port}`);
    expect(stopped.code).toBe(ExitCodes.ok);
  },
  HANG_GUARD_MS,
);

test('init writes a starter config and refuses to overwrite it without --force', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'dynafold-init-'));
  const first = await dynafold(['init'], { cwd: folder });
  expect(first.code).toBe(ExitCodes.ok);
  expect(existsSync(join(folder, 'dynafold.config.ts'))).toBe(true);
  expect(stripped(first.stdout)).toMatch(/^✔ wrote .*dynafold\.config\.ts \(no module of the app exports a stream yet: 0 streams, 0 projections\)\n/);
  const second = await dynafold(['init'], { cwd: folder });
  expect(second.code).toBe(ExitCodes.usage);
  expect(second.stderr).toMatch(/exists: pass --force/);
});

describe("on the app's own modules", () => {
  const own = ownTables('cli-own');
  const app = join(fixtures, 'own-clients');
  // No AWS settings at all, as on a laptop: the module's `new DynamoDBClient({})` has no region of its own.
  const bare = withoutAws();
  const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
    dynafold(args, { cwd: app, environment: bare.environment, env: { ...bare.env, ...own, ...env } });

  test(
    "a config that imports the app's module reaches the clients made there: --endpoint, the region and the credentials apply to them",
    async () => {
      expect((await run(['tables', 'create'])).code).toBe(ExitCodes.ok);
      await orderStream(own.CLI_EVENTS_TABLE).append({ orderId: 'a1' }, [{ type: 'ItemAdded', data: { price: 4 } }]);
      const tail = await run(['tail', 'orders', '--from-start', '--limit', '1']);
      expect({ code: tail.code, stderr: tail.stderr }).toEqual({ code: ExitCodes.ok, stderr: '' });
      expect(stripped(tail.stdout)).toBe('<time> Order#a1 v1 ItemAdded {"price":4}\n');
      const backfilled = await run(['backfill', 'order-totals', '--json']);
      expect(backfilled.code).toBe(ExitCodes.ok);
      expect(json<{ rowsWritten: number }>(backfilled).rowsWritten).toBe(1);
    },
    HANG_GUARD_MS,
  );

  test(
    'a client given an endpoint of its own in code is named, with how to fix it, before anything is sent',
    async () => {
      const astray = await run(['status'], { CLI_APP_ENDPOINT: 'http://127.0.0.1:9' });
      expect(astray.code).toBe(ExitCodes.usage);
      expect(astray.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^✖ configuration: The command is pointed at http:\/\/\S+, but stream Order \(streams\.orders\) goes to http:\/\/127\.0\.0\.1:9; .* Build it in the config's setup with the client setup is handed/,
        ),
      ]);
      expect(astray.stderr).toMatch(/the read model of projection order-totals goes to http:\/\/127\.0\.0\.1:9/);
    },
    HANG_GUARD_MS,
  );

  test(
    "init writes a config that imports the app's modules and builds what they export with the command's client",
    async () => {
      const folder = mkdtempSync(join(tmpdir(), 'dynafold-init-'));
      mkdirSync(join(folder, 'src'));
      writeFileSync(
        join(folder, 'src', 'orders.ts'),
        [
          "import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
          "import { EventStream } from 'dynafold';",
          "import { z } from 'zod';",
          'export const orderStream = (client: DynamoDBClient, table: string) =>',
          "  new EventStream({ client, table, name: 'Order', streamId: ['orderId'], events: { OrderPlaced: z.object({}) } });",
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(folder, 'src', 'orders.test.ts'),
        "import { EventStream } from 'dynafold';\nexport const unused = new EventStream(null as never);\n",
      );
      const init = await dynafold(['init'], { cwd: folder });
      expect(stripped(init.stdout)).toMatch(/^✔ wrote .*dynafold\.config\.ts \(from src\/orders\.ts: 1 stream, 0 projections\)\n/);
      const config = readFileSync(join(folder, 'dynafold.config.ts'), 'utf8');
      expect(config).toContain("import * as orders from './src/orders.js';");
      expect(config).toContain("const orderStream = orders.orderStream(client, 'events');");
      expect(config).toContain('streams: { orderStream },');
    },
    HANG_GUARD_MS,
  );
});

describe('on one set of tables', () => {
  beforeAll(async () => {
    const created = await dynafold(['tables', 'create']);
    expect(created.code).toBe(ExitCodes.ok);
    expect(
      created.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.replace(/cli-[\w-]+/, '<table>')),
    ).toEqual(['created  <table> (events)', 'created  <table> (read models)', 'created  <table> (checkpoints)']);
    await appendOrders(0, 120);
  }, HANG_GUARD_MS);

  test('tables create is idempotent', async () => {
    const again = await dynafold(['tables', 'create', '--json']);
    expect(json<Array<{ created: boolean }>>(again).map((table) => table.created)).toEqual([false, false, false]);
  });

  test('tables create enables TTL on the events table whose stream expires idempotency sentinels', async () => {
    const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: tables.CLI_EVENTS_TABLE }));
    expect(TimeToLiveDescription).toMatchObject({ AttributeName: 'ttl', TimeToLiveStatus: 'ENABLED' });
  });

  test(
    'a backfill interrupted with SIGINT keeps its progress and the next run resumes it; the poison row is parked, then retried',
    async () => {
      let interrupted = false;
      const first = await dynafold(['backfill', 'summaries', '--rps', '40', '--concurrency', '2', '--segments', '2'], {
        onStderr: (text, kill) => {
          // Progress lines come once a second; interrupt after the first.
          if (!interrupted && /\d+\/\S+ instances/.test(text)) {
            interrupted = true;
            kill();
          }
        },
      });
      expect(first.code).toBe(ExitCodes.interrupted);
      expect(first.stdout).toMatch(/^Interrupted: the progress of backfill summaries is saved\. Run the same command to resume\.\n$/);

      const second = await dynafold(['backfill', 'summaries', '--segments', '2', '--json']);
      expect(second.code).toBe(ExitCodes.ok);
      const progress = json<{ resumed: boolean; done: boolean; instancesDone: number; rowsParked: number }>(second);
      expect(progress).toMatchObject({ resumed: true, done: true, instancesDone: 120 });
      await expectRows(range(120).filter((n) => n !== 3));

      const parked = await dynafold(['parked', 'list', 'summaries', '--json']);
      expect(json<Array<{ key: unknown; attempts: number }>>(parked)).toEqual([expect.objectContaining({ key: { orderId: 'o3' } })]);
      const stillFailing = await dynafold(['parked', 'retry', 'summaries', '{"orderId":"o3"}']);
      expect(stillFailing.code).toBe(ExitCodes.failed);
      const fixed = await dynafold(['parked', 'retry', 'summaries', '{"orderId":"o3"}'], { env: { CLI_POISON_FIXED: '1' } });
      expect(fixed.code).toBe(ExitCodes.ok);
      expect(stripped(fixed.stdout)).toBe('✔ {"orderId":"o3"}: replayed, 2 events applied\n');
      await expectRows(range(120));
    },
    HANG_GUARD_MS,
  );

  test(
    'rebuild re-derives every row of the projection in place',
    async () => {
      const rebuilt = await dynafold(['rebuild', 'summaries', '--json'], { env: { CLI_POISON_FIXED: '1' } });
      expect(rebuilt.code).toBe(ExitCodes.ok);
      expect(json<{ instances: number; rows: number }>(rebuilt)).toEqual({ projection: 'summaries', instances: 120, rows: 120 });
      await expectRows(range(120));
    },
    HANG_GUARD_MS,
  );

  test(
    "rebuild with a stream id re-derives that instance's rows only, given as JSON or as text",
    async () => {
      // Rows to rebuild, whichever tests ran before.
      expect((await dynafold(['backfill', 'summaries'], { env: { CLI_POISON_FIXED: '1' } })).code).toBe(ExitCodes.ok);
      const json = await dynafold(['rebuild', 'summaries', '{"orderId":"o5"}', '--json'], { env: { CLI_POISON_FIXED: '1' } });
      expect(json.code).toBe(ExitCodes.ok);
      expect(JSON.parse(json.stdout)).toEqual({ projection: 'summaries', streamId: { orderId: 'o5' }, instances: 1, rows: 1 });
      const text = await dynafold(['rebuild', 'summaries', 'o6'], { env: { CLI_POISON_FIXED: '1' } });
      expect(text.stdout).toBe('✔ rebuild summaries o6: 1 row re-derived\n');
      const broken = await dynafold(['rebuild', 'summaries', '{"orderId":'], { env: { CLI_POISON_FIXED: '1' } });
      expect(broken.code).toBe(ExitCodes.usage);
      expect(broken.stderr).toMatch(/^✖ configuration: Expected the stream id as JSON/);
      await expectRows(range(120));
    },
    HANG_GUARD_MS,
  );

  test(
    'off a terminal, backfill and rebuild print a progress line at most every 10 s and one summary line',
    async () => {
      // A line at the first report, then one per 10 s at most: how many the time it took allows.
      const progressLines = async (args: string[]) => {
        const started = Date.now();
        const run = await dynafold(args, { env: { CLI_POISON_FIXED: '1' } });
        const lines = run.stderr.split('\n').filter(Boolean);
        expect({ code: run.code, fewLines: lines.length <= 1 + (Date.now() - started) / 10_000 }).toEqual({ code: ExitCodes.ok, fewLines: true });
        return { lines, stdout: run.stdout };
      };
      const backfilled = await progressLines(['backfill', 'summaries', '--restart']);
      expect(backfilled.stdout).toMatch(/^✔ backfill summaries: 120 instances, \d+ events applied, \d+ rows written, 0 parked\n$/);
      for (const line of backfilled.lines) expect(line).toMatch(/^\d+(\/\d+)? instances, \d+ events, [\d.]+\/s(, ETA \d\S*)?$/);
      const rebuilt = await progressLines(['rebuild', 'summaries']);
      expect(rebuilt.stdout).toBe('✔ rebuild summaries: 120 instances, 120 rows re-derived\n');
      for (const line of rebuilt.lines) expect(line).toMatch(/^\d+ instances, \d+ rows, [\d.]+\/s$/);
    },
    HANG_GUARD_MS,
  );

  test(
    'rebuild --rps holds every request to the rate',
    async () => {
      // Timed from the first instance's progress line, so that the command's start-up is not counted.
      let firstInstanceAt: number | undefined;
      const rebuilt = await dynafold(['rebuild', 'summaries', '--rps', '40'], {
        env: { CLI_POISON_FIXED: '1' },
        onStderr: () => (firstInstanceAt ??= Date.now()),
      });
      expect(rebuilt.code).toBe(ExitCodes.ok);
      // The other 119 instances × (a Query, a row read, a row write) at least, 40 a second, less two seconds'
      // worth: the throttle's first second of burst, and the requests spent before the first line reached us.
      // An ignored --rps takes about a second.
      expect(Date.now() - (firstInstanceAt as number)).toBeGreaterThanOrEqual(((119 * 3 - 2 * 40) / 40) * 1000);
    },
    HANG_GUARD_MS,
  );

  test(
    'status while a feed runs and after it stops: the lease, checkpoints and lag; failing once it is behind with no consumer',
    async () => {
      const store = new DynamoCheckpointStore({ client, table: tables.CLI_CHECKPOINT_TABLE });
      const streamArn = (await readStreamArn()) as string;
      const feed = new ChangeFeedConsumer({
        ...localFeed,
        streamsClient: streams(),
        streamArn,
        consumer: 'cli-summaries',
        checkpoints: store,
        pollIntervalMs: 50,
        lease: { durationMs: 30_000, renewEveryMs: 5_000, owner: 'service-1' },
      });
      // Records, not events: each of the 120 appends is one record, the commit of its two events.
      let read = 0;
      const running = runChangeFeed(feed, { projections: {}, onBatch: (_result, batch) => void (read += batch.records.length) });
      await waitFor(
        async () => read >= 120 && (await store.getCheckpoints({ consumer: 'cli-summaries', streamArn })).size > 0,
        30_000,
        'the feed to read the stream',
      );

      const live = await dynafold(['status', '--json']);
      const liveStatus = json<{
        healthy: boolean;
        feeds: Array<{ lease: { owner: string; live: boolean }; shards: Array<{ lagRecords: number; checkpoint: string }> }>;
      }>(live);
      expect(live.code).toBe(ExitCodes.ok);
      expect(liveStatus.healthy).toBe(true);
      expect(liveStatus.feeds[0]?.lease).toMatchObject({ owner: 'service-1', live: true });
      expect(liveStatus.feeds[0]?.shards).toEqual([expect.objectContaining({ lagRecords: 0, checkpoint: expect.stringMatching(/^\d+$/) })]);

      await feed.stop();
      await running;
      await appendOrders(120, 122);
      const stopped = await dynafold(['status']);
      expect(stopped.code).toBe(ExitCodes.unhealthy);
      const lines = stripped(stopped.stdout).split('\n');
      expect(lines[0]).toBe('feed summaries (consumer cli-summaries): no lease. Behind, and no consumer holds the lease.');
      // Two appends behind: two records (of two events each).
      expect(lines.find((line) => line.includes('<shard>'))).toMatch(/│ <shard> │ open\s+│ \d+\s+│ 2\s+│ (<age>|-)\s+│/);
      expect(lines.filter(Boolean).at(-1)).toBe('failing');
    },
    HANG_GUARD_MS,
  );

  test(
    'status says which access key a local endpoint is asked with when its tables are missing (DynamoDB Local keeps a database per key), and nothing of it when they answer',
    async () => {
      const found = await dynafold(['status', '--json']);
      expect(found.stderr).toBe('');
      const fixed = await dynafold(['status', '--json'], { env: { CLI_EVENTS_TABLE: uniqueName('cli-nowhere') } });
      expect(fixed.code).toBe(ExitCodes.failed);
      expect(fixed.stderr).toMatch(
        /^http:\/\/\S+ with access key dynafold \(DynamoDB Local's fixed test credentials\): DynamoDB Local keeps a database per access key/,
      );
      const other = await dynafold(['status', '--json'], { env: { AWS_ACCESS_KEY_ID: 'someapp', AWS_SECRET_ACCESS_KEY: 'local' } });
      expect(other.code).toBe(ExitCodes.failed);
      expect(other.stderr.split('\n')[0]).toMatch(/^http:\/\/\S+ with access key someapp \(AWS_ACCESS_KEY_ID\): /);
    },
    HANG_GUARD_MS,
  );

  test(
    'tail prints events one line each (or JSON) without a checkpoint of its own',
    async () => {
      const human = await dynafold(['tail', 'orders', '--from-start', '--limit', '3']);
      expect(human.code).toBe(ExitCodes.ok);
      expect(stripped(human.stdout).split('\n').filter(Boolean)).toEqual([
        '<time> Order#o0 v1 OrderPlaced {"customer":"c0"}',
        '<time> Order#o0 v2 ItemAdded {"price":0}',
        '<time> Order#o1 v1 OrderPlaced {"customer":"c1"}',
      ]);
      const raw = await dynafold(['tail', 'Order', '--from-start', '--limit', '2', '--json']);
      expect(
        raw.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { streamId: string; version: number }),
      ).toEqual([expect.objectContaining({ streamId: 'o0', version: 1 }), expect.objectContaining({ streamId: 'o0', version: 2 })]);
    },
    HANG_GUARD_MS,
  );

  test(
    'replay processes an OnFailure message again; checkpoints reset asks first, or takes --yes',
    async () => {
      const records = await readStreamRecords((await readStreamArn()) as string);
      const first = records[0];
      const last = records[5];
      const message = {
        requestContext: { condition: 'RetryAttemptsExhausted' },
        DDBStreamBatchInfo: {
          shardId: first?.dynamodb === undefined ? '' : ((await shardOf()) ?? ''),
          startSequenceNumber: first?.dynamodb?.SequenceNumber,
          endSequenceNumber: last?.dynamodb?.SequenceNumber,
          streamArn: await readStreamArn(),
          batchSize: 6,
        },
      };
      const file = join(mkdtempSync(join(tmpdir(), 'dynafold-replay-')), 'failure.json');
      writeFileSync(file, JSON.stringify({ Records: [{ body: JSON.stringify(message) }] }));
      const replay = await dynafold(['replay', file]);
      expect(replay.stderr).toBe('');
      expect(replay.code).toBe(ExitCodes.ok);
      expect(replay.stdout).toBe('✔ message 1: its batch was processed again\n');
      // A malformed range is bad input (exit 2); a range that holds fewer records than its batch fails (exit 1).
      const malformed = join(mkdtempSync(join(tmpdir(), 'dynafold-replay-')), 'malformed.json');
      writeFileSync(malformed, JSON.stringify({ DDBStreamBatchInfo: { ...message.DDBStreamBatchInfo, startSequenceNumber: 'first' } }));
      const refusedReplay = await dynafold(['replay', malformed]);
      expect(refusedReplay.code).toBe(ExitCodes.usage);
      expect(refusedReplay.stderr).toMatch(/store\.validation: DDBStreamBatchInfo\.startSequenceNumber is "first"/);
      const short = join(mkdtempSync(join(tmpdir(), 'dynafold-replay-')), 'short.json');
      writeFileSync(short, JSON.stringify({ DDBStreamBatchInfo: { ...message.DDBStreamBatchInfo, batchSize: 1000 } }));
      const shortReplay = await dynafold(['replay', short]);
      expect(shortReplay.code).toBe(ExitCodes.failed);
      expect(shortReplay.stderr).toMatch(/feed\.replayRange: /);

      const refused = await dynafold(['checkpoints', 'reset', 'summaries']);
      expect(refused.code).toBe(ExitCodes.usage);
      expect(refused.stderr).toMatch(/needs a confirmation: pass --yes/);
      const reset = await dynafold(['checkpoints', 'reset', 'summaries', '--yes']);
      expect(reset.code).toBe(ExitCodes.ok);
      const store = new DynamoCheckpointStore({ client, table: tables.CLI_CHECKPOINT_TABLE });
      expect((await store.getCheckpoints({ consumer: 'cli-summaries', streamArn: (await readStreamArn()) as string })).size).toBe(0);
    },
    HANG_GUARD_MS,
  );
});

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const range = (n: number) => Array.from({ length: n }, (_unused, i) => i);

async function expectRows(numbers: ReadonlyArray<number>): Promise<void> {
  const model = new ReadModel({
    client,
    table: tables.CLI_VIEWS_TABLE,
    name: 'CliSummary',
    schema: z.object({ orderId: z.string(), customer: z.string(), total: z.number(), version: z.number() }),
    key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
  });
  for (const n of numbers) {
    expect(await model.get({ orderId: `o${n}` })).toMatchObject({ customer: n === 3 ? 'poison' : `c${n}`, total: n, version: 2 });
  }
}

async function readStreamArn(): Promise<string | undefined> {
  return (await client.send(new DescribeTableCommand({ TableName: tables.CLI_EVENTS_TABLE }))).Table?.LatestStreamArn;
}

async function shardOf(): Promise<string | undefined> {
  const answer = await streams().send(new DescribeStreamCommand({ StreamArn: await readStreamArn() }));
  return answer.StreamDescription?.Shards?.[0]?.ShardId;
}

let streamsClient: DynamoDBStreamsClient | undefined;
function streams(): DynamoDBStreamsClient {
  return (streamsClient ??= new DynamoDBStreamsClient(localConfig()));
}
afterAll(() => streamsClient?.destroy());

/** This process's environment without AWS settings or credentials, and a HOME with no ~/.aws (or `aws` files in it). */
function withoutAws(aws: Record<string, string> = {}): { environment: NodeJS.ProcessEnv; env: Record<string, string> } {
  const home = mkdtempSync(join(tmpdir(), 'dynafold-home-'));
  for (const [file, text] of Object.entries(aws)) {
    mkdirSync(join(home, '.aws'), { recursive: true });
    writeFileSync(join(home, '.aws', file), text);
  }
  return {
    environment: Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_') && !name.startsWith('DYNAMODB_ENDPOINT')),
    ),
    // No instance metadata service to wait for on a machine outside EC2.
    env: { HOME: home, AWS_EC2_METADATA_DISABLED: 'true' },
  };
}

/** Every command and subcommand, as the words that name it (`['tables', 'create']`). */
function commandPaths(command: Command, above: ReadonlyArray<string> = []): string[][] {
  return command.commands.flatMap((sub) => [[...above, sub.name()], ...commandPaths(sub, [...above, sub.name()])]);
}

/** Every option of the command and its subcommands. */
function optionsOf(command: Command): Option[] {
  return [...command.options, ...command.commands.flatMap(optionsOf)];
}

describe('help and hints', () => {
  test('without --endpoint or credentials, one line says what to do (dynafold local, --endpoint, a profile)', async () => {
    const run = await dynafold(['status'], { endpoint: false, ...withoutAws() });
    expect(run.code).toBe(ExitCodes.usage);
    expect(run.stderr.trim().split('\n')).toEqual([
      '✖ credentials: Could not load credentials from any providers. For DynamoDB Local, run `npx dynafold local` and pass --endpoint http://127.0.0.1:8000 (or set DYNAMODB_ENDPOINT to it); ' +
        'for AWS, set AWS_PROFILE (or pass --profile) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    ]);
  });

  test("DYNAMODB_ENDPOINT, the test kit's variable, points the command as --endpoint does", async () => {
    const bare = withoutAws();
    const run = await dynafold(['tables', 'create', '--json'], {
      endpoint: false,
      environment: bare.environment,
      env: { ...bare.env, DYNAMODB_ENDPOINT: localConfig().endpoint },
    });
    expect(run.code).toBe(ExitCodes.ok);
    expect(json<Array<{ table: string }>>(run).map((table) => table.table)).toContain(tables.CLI_EVENTS_TABLE);
  });

  test(
    'every command and subcommand lists the global options in its --help',
    async () => {
      const globals = program()
        .options.map((option) => option.long as string)
        .filter((flag) => flag !== '--version');
      expect(globals).toEqual(['--config', '--endpoint', '--region', '--profile', '--json']);
      const paths = commandPaths(program());
      expect(paths.length).toBeGreaterThan(10);
      for (const path of paths) {
        const help = await dynafold([...path, '--help'], { endpoint: false });
        expect({ path, code: help.code }).toEqual({ path, code: ExitCodes.ok });
        const section = help.stdout.slice(help.stdout.indexOf('Global Options:'));
        expect({ path, section: section.startsWith('Global Options:') }).toEqual({ path, section: true });
        for (const flag of globals) expect({ path, flag, listed: section.includes(flag) }).toEqual({ path, flag, listed: true });
      }
    },
    HANG_GUARD_MS,
  );

  test('--version prints the package version', async () => {
    const run = await dynafold(['--version'], { endpoint: false });
    expect(run.code).toBe(ExitCodes.ok);
    expect(run.stdout).toBe(`${(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version}\n`);
  });

  test('init --force overwrites the config it wrote', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dynafold-init-'));
    writeFileSync(join(folder, 'dynafold.config.ts'), '// mine\n');
    const forced = await dynafold(['init', '--force'], { cwd: folder });
    expect(forced.code).toBe(ExitCodes.ok);
    expect(readFileSync(join(folder, 'dynafold.config.ts'), 'utf8')).toMatch(/defineConfig\(/);
  });

  test('every flag the help offers is exercised by a test in this file', () => {
    const source = readFileSync(__filename, 'utf8');
    const flags = [...new Set(['--help', ...optionsOf(program()).map((option) => option.long as string)])];
    expect(flags.filter((flag) => !source.includes(`'${flag}'`))).toEqual([]);
  });
});

/** Table names of the fixture config's own, for a describe block of its own. */
function ownTables(prefix: string): typeof tables {
  return {
    CLI_EVENTS_TABLE: uniqueName(`${prefix}-events`),
    CLI_VIEWS_TABLE: uniqueName(`${prefix}-views`),
    CLI_CHECKPOINT_TABLE: uniqueName(`${prefix}-checkpoints`),
  };
}

/** `dynafold` on these tables. */
const on =
  (own: typeof tables) =>
  (args: ReadonlyArray<string>, options: Parameters<typeof dynafold>[1] = {}): Promise<Run> =>
    dynafold(args, { ...options, env: { ...own, ...options.env } });

/** The lines of stdout with table names taken out. */
const named = (run: Run) =>
  run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/cli-[\w-]+/, '<table>'));

describe('tables create on tables that exist already', () => {
  const own = ownTables('cli-made');
  const wrongKey = uniqueName('cli-wrong-key');

  beforeAll(async () => {
    // An events table made by hand, without the stream projections and the change feed read.
    const { StreamSpecification: _stream, ...noStream } = eventsTableDefinition(own.CLI_EVENTS_TABLE);
    await client.send(new CreateTableCommand(noStream));
    await client.send(
      new CreateTableCommand({
        TableName: wrongKey,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  });

  test(
    'tables create enables the stream (and TTL) an existing events table lacks, and says so; tail then reads it',
    async () => {
      const created = await on(own)(['tables', 'create']);
      expect(created.code).toBe(ExitCodes.ok);
      expect(named(created)).toEqual([
        'updated  <table> (events): stream enabled (NEW_AND_OLD_IMAGES), TTL enabled on ttl',
        'created  <table> (read models)',
        'created  <table> (checkpoints)',
      ]);
      const { Table } = await client.send(new DescribeTableCommand({ TableName: own.CLI_EVENTS_TABLE }));
      expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
      const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: own.CLI_EVENTS_TABLE }));
      expect(TimeToLiveDescription).toMatchObject({ AttributeName: 'ttl', TimeToLiveStatus: 'ENABLED' });

      const again = await on(own)(['tables', 'create']);
      expect(named(again)).toEqual(['exists   <table> (events)', 'exists   <table> (read models)', 'exists   <table> (checkpoints)']);
      await orderStream(own.CLI_EVENTS_TABLE).append({ orderId: 'o1' }, [{ type: 'OrderPlaced', data: { customer: 'c1' } }]);
      const tail = await on(own)(['tail', 'orders', '--from-start', '--limit', '1']);
      expect(stripped(tail.stdout)).toBe('<time> Order#o1 v1 OrderPlaced {"customer":"c1"}\n');
    },
    HANG_GUARD_MS,
  );

  test(
    'tables create fails, naming the table and its key, for an existing table keyed otherwise',
    async () => {
      const run = await on(own)(['tables', 'create'], { env: { CLI_EVENTS_TABLE: wrongKey } });
      expect(run.code).toBe(ExitCodes.failed);
      expect(named(run)[0]).toBe(
        '✖ <table> (events): its key is id (HASH) where dynafold needs pk (HASH), sk (RANGE): name another table in the config, or delete this one and run tables create again',
      );
    },
    HANG_GUARD_MS,
  );
});

describe('the first minutes on tables made by tables create', () => {
  const own = ownTables('cli-first');
  const ownOrders = orderStream(own.CLI_EVENTS_TABLE);

  beforeAll(async () => {
    expect((await on(own)(['tables', 'create'])).code).toBe(ExitCodes.ok);
  }, HANG_GUARD_MS);

  test(
    'tail without --from-start says on stderr that it waits for new events, then prints them',
    async () => {
      let stdout = '';
      let stderr = '';
      const stop = new AbortController();
      const running = on(own)(['tail', 'orders', '--limit', '1'], {
        signal: stop.signal,
        onStdout: (text) => void (stdout = text),
        onStderr: (text) => void (stderr = text),
      });
      try {
        await waitFor(() => stderr !== '', 30_000, 'tail to say what it waits for');
        expect(stderr).toBe('Waiting for events appended from now on (Ctrl-C stops); --from-start prints the ones the stream holds first.\n');
        // Appended until one shows: the feed starts at the stream's tip a moment after the line.
        let appended = 0;
        await waitFor(
          async () => {
            await ownOrders.append({ orderId: `t${appended++}` }, [{ type: 'OrderPlaced', data: { customer: 'c' } }]);
            return stdout !== '';
          },
          30_000,
          'tail to print an event appended after it started',
        );
      } finally {
        // A tail that never printed would wait for ever.
        if (stdout === '') stop.abort();
      }
      const tail = await running;
      expect(tail.code).toBe(ExitCodes.ok);
      expect(stripped(tail.stdout)).toMatch(/^<time> Order#t\d+ v1 OrderPlaced \{"customer":"c"\}\n$/);
    },
    HANG_GUARD_MS,
  );

  test(
    'tail --from-start --limit on a stream that holds fewer events prints them and ends once it has read the stream',
    async () => {
      const short = ownTables('cli-short');
      expect((await on(short)(['tables', 'create'])).code).toBe(ExitCodes.ok);
      await orderStream(short.CLI_EVENTS_TABLE).append({ orderId: 's1' }, [
        { type: 'OrderPlaced', data: { customer: 'c' } },
        { type: 'ItemAdded', data: { price: 3 } },
      ]);
      // A hang guard, not a time limit: a tail that waits for events that never come is stopped and fails.
      const guard = new AbortController();
      const timer = setTimeout(() => guard.abort(), 120_000);
      const tail = await on(short)(['tail', 'orders', '--from-start', '--limit', '5'], { signal: guard.signal }).finally(() => clearTimeout(timer));
      expect({ aborted: guard.signal.aborted, code: tail.code }).toEqual({ aborted: false, code: ExitCodes.ok });
      expect(stripped(tail.stdout).split('\n').filter(Boolean)).toEqual([
        '<time> Order#s1 v1 OrderPlaced {"customer":"c"}',
        '<time> Order#s1 v2 ItemAdded {"price":3}',
      ]);
    },
    HANG_GUARD_MS,
  );

  test('status says a feed is behind with no lease holder in a sentence of its own', async () => {
    await ownOrders.append({ orderId: 'behind' }, [{ type: 'OrderPlaced', data: { customer: 'c' } }]);
    const run = await on(own)(['status']);
    expect(run.code).toBe(ExitCodes.unhealthy);
    expect(run.stdout.split('\n')[0]).toBe('feed summaries (consumer cli-summaries): no lease. Behind, and no consumer holds the lease.');
  });

  test(
    'backfill --run names its saved progress and --restart forgets it',
    async () => {
      await ownOrders.append({ orderId: 'backfilled' }, [{ type: 'OrderPlaced', data: { customer: 'c' } }]);
      // The progress a backfill of run `first` interrupted after its first segment left, where the README says it is
      // kept (`_dfBackfill#<projection>#<run>#<table>`, the projection named `summaries`): an interrupt lands
      // between two pages only by luck.
      const interrupted = () =>
        client.send(
          new PutItemCommand({
            TableName: own.CLI_VIEWS_TABLE,
            Item: {
              pk: { S: `_dfBackfill#summaries#first#${own.CLI_EVENTS_TABLE}` },
              sk: { S: '0' },
              progress: { S: JSON.stringify({ segments: 2, done: true, instances: 5, scanned: 5 }) },
            },
          }),
        );
      const backfill = async (...flags: string[]) => {
        const run = await on(own)(['backfill', 'summaries', '--segments', '2', '--json', ...flags]);
        expect(run.code).toBe(ExitCodes.ok);
        return json<{ resumed: boolean; done: boolean }>(run);
      };
      await interrupted();
      expect(await backfill('--run', 'second')).toMatchObject({ resumed: false, done: true });
      expect(await backfill('--run', 'first', '--restart')).toMatchObject({ resumed: false, done: true });
      await interrupted();
      expect(await backfill('--run', 'first')).toMatchObject({ resumed: true, done: true });
    },
    HANG_GUARD_MS,
  );

  test(
    '--profile reads credentials from ~/.aws, and a profile that is not there gets the hint',
    async () => {
      const { accessKeyId, secretAccessKey } = localConfig().credentials;
      const aws = withoutAws({ credentials: `[dynafold-local]\naws_access_key_id = ${accessKeyId}\naws_secret_access_key = ${secretAccessKey}\n` });
      // The worker's DynamoDB Local keeps a database per access key: the tables are seen with the profile's.
      const seen = await on(own)(['tables', 'create', '--profile', 'dynafold-local', '--json'], aws);
      expect(seen.code).toBe(ExitCodes.ok);
      expect(json<Array<{ created: boolean }>>(seen).map((table) => table.created)).toEqual([false, false, false]);
      const missing = await on(own)(['status', '--profile', 'nobody'], aws);
      expect(missing.code).toBe(ExitCodes.usage);
      expect(missing.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^✖ credentials: .* with profile nobody\. Check that ~\/\.aws\/credentials /),
      ]);
    },
    HANG_GUARD_MS,
  );

  test(
    '--region picks the region (another database in DynamoDB Local)',
    async () => {
      const elsewhere = await on(own)(['tables', 'create', '--region', 'eu-west-1', '--json']);
      expect(elsewhere.code).toBe(ExitCodes.ok);
      expect(json<Array<{ created: boolean }>>(elsewhere).map((table) => table.created)).toEqual([true, true, true]);
    },
    HANG_GUARD_MS,
  );
});

describe('personal data: tables create makes the key table, tail reads sealed events, forget asks first', () => {
  const own = { ...ownTables('cli-erasure'), CLI_KEYS_TABLE: uniqueName('cli-keys'), CLI_KEK: randomBytes(32).toString('hex') };
  const run = on(own);
  const customers = () =>
    new EventStream({
      client,
      table: own.CLI_EVENTS_TABLE,
      name: 'Customer',
      streamId: ['customerId'],
      events: { Registered: z.object({ name: z.string() }) },
      personalData: {
        keys: new SubjectKeys({ client, table: own.CLI_KEYS_TABLE, provider: new LocalKeyProvider({ key: Buffer.from(own.CLI_KEK, 'hex') }) }),
        events: { Registered: { subject: { streamId: 'customerId' }, fields: { name: '[erased]' } } },
      },
    });

  test(
    'forget deletes a subject’s key after a confirmation; tail then prints its data redacted and the others’ in the clear',
    async () => {
      const created = await run(['tables', 'create', '--json']);
      expect(created.code).toBe(ExitCodes.ok);
      expect(json<Array<{ table: string; kind: string }>>(created)).toContainEqual(
        expect.objectContaining({ table: own.CLI_KEYS_TABLE, kind: 'subject keys', created: true }),
      );
      await customers().append({ customerId: 'p-1' }, [{ type: 'Registered', data: { name: 'Ada Lovelace' } }]);
      await customers().append({ customerId: 'p-2' }, [{ type: 'Registered', data: { name: 'Grace Hopper' } }]);
      const before = await run(['tail', 'customers', '--from-start', '--limit', '2']);
      expect(before.code).toBe(ExitCodes.ok);
      expect(before.stdout).toMatch(/Customer#p-1 v1 Registered \{"name":"Ada Lovelace"\}/);

      const unconfirmed = await run(['forget', 'p-1']);
      expect(unconfirmed.code).toBe(ExitCodes.usage);
      expect(unconfirmed.stderr.trim()).toBe('✖ configuration: forget p-1 needs a confirmation: pass --yes when not at a terminal.');
      const forgotten = await run(['forget', 'p-1', '--yes']);
      expect(forgotten.code).toBe(ExitCodes.ok);
      expect(forgotten.stdout).toBe(`✔ subject "p-1" forgotten in ${own.CLI_KEYS_TABLE}: key deleted\n`);
      expect(forgotten.stderr).toMatch(/rebuild the rows of the stream instances that hold its data/);
      const again = await run(['forget', 'p-1', '-y', '--json']);
      expect(json<{ subject: string; forgotten: Array<{ alreadyForgotten: boolean; keyDeleted: boolean }> }>(again)).toMatchObject({
        subject: 'p-1',
        forgotten: [{ table: own.CLI_KEYS_TABLE, alreadyForgotten: true, keyDeleted: false }],
      });

      const after = await run(['tail', 'customers', '--from-start', '--limit', '2', '--json']);
      const events = after.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { streamId: string; data: unknown });
      expect(events.map((event) => [event.streamId, event.data])).toEqual([
        ['p-1', { name: '[erased]' }],
        ['p-2', { name: 'Grace Hopper' }],
      ]);
      await expect(customers().append({ customerId: 'p-1' }, [{ type: 'Registered', data: { name: 'Ada' } }])).rejects.toThrow(/was forgotten/);
    },
    HANG_GUARD_MS,
  );

  test('forget on a config whose streams hold no personal data says so', async () => {
    const none = await dynafold(['forget', 'p-1', '--yes']);
    expect(none.code).toBe(ExitCodes.usage);
    expect(none.stderr.trim()).toBe(
      '✖ configuration: No stream of the config declares `personalData`: there is no key table to forget a subject in.',
    );
  });
});
