/**
 * The `dynafold` command, spawned as a user runs it, against DynamoDB Local with the config in
 * fixtures/: tables, backfill interrupted with SIGINT and resumed, parked rows, status while a feed runs
 * and after it stops, tail, replay, checkpoints, init, and bad input (one line, a documented exit code).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DescribeTimeToLiveCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { EventStream, ReadModel } from 'dynafold';
import { ExitCodes } from 'dynafold/cli';
import { ChangeFeedConsumer, DynamoCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { z } from 'zod';
import { waitFor, localFeed } from '../feed/support';
import { localConfig, testClient, uniqueName } from '../support/dynamo';
import { readStreamRecords } from '../support/stream-records';

const root = join(__dirname, '..', '..');
const fixtures = join(__dirname, 'fixtures');
const client = testClient();
const tables = {
  CLI_EVENTS_TABLE: uniqueName('cli-events'),
  CLI_VIEWS_TABLE: uniqueName('cli-views'),
  CLI_CHECKPOINT_TABLE: uniqueName('cli-checkpoints'),
};
const orders = new EventStream({
  client,
  table: tables.CLI_EVENTS_TABLE,
  name: 'Order',
  streamId: ['orderId'],
  events: { OrderPlaced: z.object({ customer: z.string() }), ItemAdded: z.object({ price: z.number() }) },
});

afterAll(() => client.destroy());

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Spawns the command (Node with tsx as a loader, so signals reach it); `onStderr` sees its diagnostics as they come. */
function dynafold(
  args: ReadonlyArray<string>,
  options: {
    cwd?: string;
    env?: Record<string, string>;
    onStderr?: (text: string, kill: () => void) => void;
    onStdout?: (text: string, kill: () => void) => void;
  } = {},
): Promise<Run> {
  const child = spawn(
    process.execPath,
    ['--require', require.resolve('tsx/cjs'), join(root, 'lib', 'cli', 'main.ts'), '--endpoint', localConfig().endpoint, ...args],
    {
      cwd: options.cwd ?? fixtures,
      env: { ...process.env, ...tables, NODE_NO_WARNINGS: '1', NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
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
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
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
});

test('a rebuild whose fold throws while the scan still lists is one line on stderr and exit 1', async () => {
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
}, 120_000);

test('local runs DynamoDB Local with one shared database until Ctrl-C', async () => {
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
}, 60_000);

test('init writes a starter config and refuses to overwrite it without --force', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'dynafold-init-'));
  const first = await dynafold(['init'], { cwd: folder });
  expect(first.code).toBe(ExitCodes.ok);
  expect(existsSync(join(folder, 'dynafold.config.ts'))).toBe(true);
  expect(stripped(first.stdout)).toMatch(/^✔ wrote .*dynafold\.config\.ts\n/);
  const second = await dynafold(['init'], { cwd: folder });
  expect(second.code).toBe(ExitCodes.usage);
  expect(second.stderr).toMatch(/exists: pass --force/);
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
  }, 120_000);

  test('tables create is idempotent', async () => {
    const again = await dynafold(['tables', 'create', '--json']);
    expect(json<Array<{ created: boolean }>>(again).map((table) => table.created)).toEqual([false, false, false]);
  });

  test('tables create enables TTL on the events table whose stream expires idempotency sentinels', async () => {
    const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: tables.CLI_EVENTS_TABLE }));
    expect(TimeToLiveDescription).toMatchObject({ AttributeName: 'ttl', TimeToLiveStatus: 'ENABLED' });
  });

  test('a backfill interrupted with SIGINT keeps its progress and the next run resumes it; the poison row is parked, then retried', async () => {
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
  }, 120_000);

  test('rebuild re-derives every row of the projection in place', async () => {
    const rebuilt = await dynafold(['rebuild', 'summaries', '--json'], { env: { CLI_POISON_FIXED: '1' } });
    expect(rebuilt.code).toBe(ExitCodes.ok);
    expect(json<{ instances: number; rows: number }>(rebuilt)).toEqual({ projection: 'summaries', instances: 120, rows: 120 });
    await expectRows(range(120));
  }, 60_000);

  test('off a terminal, backfill and rebuild print a progress line at most every 10 s and one summary line', async () => {
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
  }, 120_000);

  test('rebuild --rps holds every request to the rate', async () => {
    // Timed from the first instance's progress line, so that the command's start-up is not counted.
    let firstInstanceAt: number | undefined;
    const rebuilt = await dynafold(['rebuild', 'summaries', '--rps', '40'], {
      env: { CLI_POISON_FIXED: '1' },
      onStderr: () => (firstInstanceAt ??= Date.now()),
    });
    expect(rebuilt.code).toBe(ExitCodes.ok);
    // The other 119 instances × (a Query, a row read, a row write) at least: past a second's 40, 40 a second.
    expect(Date.now() - (firstInstanceAt as number)).toBeGreaterThanOrEqual(((119 * 3 - 40) / 40) * 1000);
  }, 120_000);

  test('status while a feed runs and after it stops: the lease, checkpoints and lag; failing once it is behind with no consumer', async () => {
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
    let read = 0;
    const running = runChangeFeed(feed, { projections: {}, onBatch: (_result, batch) => void (read += batch.records.length) });
    await waitFor(
      async () => read >= 240 && (await store.getCheckpoints({ consumer: 'cli-summaries', streamArn })).size > 0,
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
    expect(lines[0]).toBe('feed summaries (consumer cli-summaries): no lease behind, and no consumer holds the lease');
    expect(lines.find((line) => line.includes('<shard>'))).toMatch(/│ <shard> │ open\s+│ \d+\s+│ 4\s+│ (<age>|-)\s+│/);
    expect(lines.filter(Boolean).at(-1)).toBe('failing');
  }, 120_000);

  test('status says which access key a local endpoint is asked with: DynamoDB Local keeps a database per key', async () => {
    const fixed = await dynafold(['status', '--json']);
    expect(fixed.stderr).toMatch(
      /^http:\/\/\S+ with access key dynafold \(DynamoDB Local's fixed test credentials\): DynamoDB Local keeps a database per access key/,
    );
    const other = await dynafold(['status', '--json'], { env: { AWS_ACCESS_KEY_ID: 'someapp', AWS_SECRET_ACCESS_KEY: 'local' } });
    expect(other.stderr.split('\n')[0]).toMatch(/^http:\/\/\S+ with access key someapp \(AWS_ACCESS_KEY_ID\): /);
  }, 60_000);

  test('tail prints events one line each (or JSON) without a checkpoint of its own', async () => {
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
  }, 60_000);

  test('replay processes an OnFailure message again; checkpoints reset asks first, or takes --yes', async () => {
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

    const refused = await dynafold(['checkpoints', 'reset', 'summaries']);
    expect(refused.code).toBe(ExitCodes.usage);
    expect(refused.stderr).toMatch(/needs a confirmation: pass --yes/);
    const reset = await dynafold(['checkpoints', 'reset', 'summaries', '--yes']);
    expect(reset.code).toBe(ExitCodes.ok);
    const store = new DynamoCheckpointStore({ client, table: tables.CLI_CHECKPOINT_TABLE });
    expect((await store.getCheckpoints({ consumer: 'cli-summaries', streamArn: (await readStreamArn()) as string })).size).toBe(0);
  }, 60_000);
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
