import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { BackfillFailedError, ConfigurationError, eventsTableDefinition, type BackfillProgress } from 'dynafold';
import { outboxTableDefinition } from 'dynafold/outbox';
import { waitFor } from '../feed/support';
import { createTestTable, localConfig, testClient } from '../support/dynamo';
import {
  accountModel,
  accountsProjection,
  ledgerStream,
  ownerModel,
  ownersProjection,
  type LedgerEvent,
  type NewLedgerEvent,
} from '../support/ledger';
import { createViewsTable, outboxMessages } from '../support/ledger-case';
import { expectAccountRows, expectOwnerRows } from '../support/ledger-truth';

const client = testClient();
const root = join(__dirname, '..', '..');
let viewsTable: string;
let models = 0;

beforeAll(async () => {
  viewsTable = await createViewsTable(client);
});
afterAll(() => client.destroy());

/** Ids from a two-letter alphabet, shortest first: a, b, aa, ab, … */
function smallIds(count: number): string[] {
  const ids: string[] = [];
  for (let length = 1; ids.length < count; length++) {
    for (let n = 0; n < 2 ** length && ids.length < count; n++) ids.push(n.toString(2).padStart(length, '0').replace(/0/g, 'a').replace(/1/g, 'b'));
  }
  return ids;
}

/** An account's history: opened, a few deposits, sometimes closed (a tombstone). */
function accountHistory(index: number): NewLedgerEvent[] {
  const owner = index % 2 === 0 ? 'a' : 'b';
  const deposits = Array.from({ length: 1 + (index % 4) }, (_, n): NewLedgerEvent => ({ type: 'Deposited', data: { owner, amount: n + 1 } }));
  return [{ type: 'Opened', data: { owner } }, ...deposits, ...(index % 7 === 3 ? [{ type: 'Closed' as const, data: { owner } }] : [])];
}

/** A fresh events table with `count` A instances (and some B instances beside them); resolves the history. */
async function writeHistory(count: number, others = 0) {
  const events = await createTestTable(client, eventsTableDefinition, 'backfill-events');
  const a = ledgerStream(client, events.name, 'A');
  const b = ledgerStream(client, events.name, 'B');
  const history = new Map<string, LedgerEvent[]>();
  const ids = smallIds(Math.max(count, others));
  await Promise.all(
    ids
      .slice(0, count)
      .map(async (id, index) => history.set(`A#${id}`, (await a.append({ id }, accountHistory(index) as never)).events as LedgerEvent[])),
  );
  await Promise.all(
    ids
      .slice(0, others)
      .map(async (id) =>
        history.set(`B#${id}`, (await b.append({ id }, [{ type: 'Deposited', data: { owner: 'b', amount: 1 } }])).events as LedgerEvent[]),
      ),
  );
  return { events: events.name, history };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

test('instances() lists every instance of the stream once, over any number of segments, and none of a stream sharing the table', async () => {
  const { events, history } = await writeHistory(12, 5);
  const a = ledgerStream(client, events, 'A');
  const want = [...history.keys()].filter((key) => key.startsWith('A#')).map((key) => key.slice(2));
  for (const segments of [1, 3, 7]) expect((await collect(a.instances({ segments }))).sort()).toEqual(want.sort());
  const empty = await createTestTable(client, eventsTableDefinition, 'backfill-empty');
  expect(await collect(ledgerStream(client, empty.name, 'A').instances())).toEqual([]);
  expect(() => a.instances({ segments: 0 })).toThrow(ConfigurationError);
  const aborted = AbortSignal.abort();
  await expect(collect(a.instances({ signal: aborted }))).rejects.toThrow();
});

test('a backfill brings every row of a new projection up to date without outbox messages; run again it applies nothing', async () => {
  const { events, history } = await writeHistory(20);
  const model = accountModel(client, viewsTable, `Accounts${++models}`);
  const outbox = (await createTestTable(client, outboxTableDefinition, 'backfill-outbox')).name;
  const accounts = accountsProjection(ledgerStream(client, events, 'A'), model, { revision: true, outbox });
  const reports: BackfillProgress[] = [];
  const done = await accounts.backfill({ segments: 3, pageSize: 4, progressIntervalMs: 0, onProgress: (progress) => reports.push(progress) });
  const { applied } = await expectAccountRows(model, history);
  expect(done).toMatchObject({ instancesDone: 20, instancesEstimate: 20, eventsApplied: applied.length, done: true, resumed: false, etaMs: 0 });
  expect(done.rowsWritten).toBe(20);
  // Reports as pages complete: counts only grow, estimates appear once part of the table is scanned.
  expect(reports.length).toBeGreaterThan(3);
  expect(reports.map((report) => report.instancesDone)).toEqual([...reports.map((report) => report.instancesDone)].sort((x, y) => x - y));
  expect(reports.some((report) => !report.done && report.instancesEstimate !== undefined && report.etaMs !== undefined)).toBe(true);
  expect(reports.at(-1)).toEqual(done);
  // History is no news: the outbox stays empty.
  expect(await outboxMessages(client, outbox)).toEqual([]);

  const again = await accounts.backfill({ segments: 2 });
  expect(again).toMatchObject({ instancesDone: 20, eventsApplied: 0, rowsWritten: 0, resumed: false });
});

test('an empty events table backfills nothing and finishes', async () => {
  const empty = await createTestTable(client, eventsTableDefinition, 'backfill-empty');
  const accounts = accountsProjection(ledgerStream(client, empty.name, 'A'), accountModel(client, viewsTable, `Empty${++models}`), {
    revision: false,
  });
  expect(await accounts.backfill()).toMatchObject({ instancesDone: 0, eventsApplied: 0, done: true });
});

test('a multi-source backfill scans the shared table once for both streams and sums every instance into its row', async () => {
  const { events, history } = await writeHistory(9, 6);
  const model = ownerModel(client, viewsTable, `Owners${++models}`);
  const owners = ownersProjection(ledgerStream(client, events, 'A'), ledgerStream(client, events, 'B'), model, {});
  const done = await owners.backfill({ segments: 2, concurrency: 3 });
  const applied = await expectOwnerRows(model, history);
  expect(done).toMatchObject({ instancesDone: 15, eventsApplied: applied.length, segments: 2 });
});

test('a backfill SIGKILLed mid-way resumes from its saved pages and finishes; every row equals its fold (nothing applied twice)', async () => {
  const { events, history } = await writeHistory(40);
  const model = `Killed${++models}`;
  const out = join(mkdtempSync(join(tmpdir(), 'dynafold-backfill-')), 'progress.jsonl');
  const reports = () =>
    existsSync(out)
      ? readFileSync(out, 'utf8')
          .split('\n')
          .filter((line) => line.length > 0)
          .map((line) => JSON.parse(line) as BackfillProgress)
      : [];
  // Node runs the fixture itself (tsx as a loader), so the SIGKILL reaches the process doing the work.
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, 'fixtures', 'backfill-child.ts')], {
    cwd: root,
    env: { ...process.env, DYNAMODB_ENDPOINT: localConfig().endpoint, EVENTS_TABLE: events, VIEWS_TABLE: viewsTable, MODEL: model, OUT_FILE: out },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  await waitFor(() => reports().length >= 3, 60_000, 'the backfill process to save a few pages');
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  const before = reports().at(-1) as BackfillProgress;
  expect(before.done).toBe(false);
  expect(before.instancesDone).toBeLessThan(40);

  const accounts = accountsProjection(ledgerStream(client, events, 'A'), accountModel(client, viewsTable, model), { revision: true });
  // The saved run had 2 segments: another count would scan other key ranges.
  await expect(accounts.backfill({ segments: 3 })).rejects.toThrow(ConfigurationError);
  const resumed = await accounts.backfill({ segments: 2 });
  expect(resumed).toMatchObject({ resumed: true, instancesDone: 40, done: true });
  const { applied } = await expectAccountRows(accountModel(client, viewsTable, model), history);
  // The resumed run applied what the killed one had not; no row saw an event twice (the rows equal their folds).
  expect(resumed.eventsApplied).toBeLessThan(applied.length);
  expect(resumed.eventsApplied).toBeGreaterThan(0);
}, 120_000);

test('an aborted backfill rejects with the reason and keeps its progress; the next call resumes it', async () => {
  const { events, history } = await writeHistory(24);
  const model = accountModel(client, viewsTable, `Aborted${++models}`);
  const accounts = accountsProjection(ledgerStream(client, events, 'A'), model, { revision: false });
  const controller = new AbortController();
  const stopped = accounts.backfill({
    segments: 1,
    concurrency: 1,
    pageSize: 4,
    progressIntervalMs: 0,
    signal: controller.signal,
    onProgress: (progress) => {
      if (progress.instancesDone >= 6) controller.abort(new Error('deploy in progress'));
    },
  });
  await expect(stopped).rejects.toThrow('deploy in progress');
  const resumed = await accounts.backfill({ segments: 1 });
  expect(resumed.resumed).toBe(true);
  expect(resumed.instancesDone).toBe(24);
  await expectAccountRows(model, history);
});

test('throttle keeps the backfill within its requests per second', async () => {
  const { events, history } = await writeHistory(16);
  const model = accountModel(client, viewsTable, `Throttled${++models}`);
  const accounts = accountsProjection(ledgerStream(client, events, 'A'), model, { revision: false });
  const started = Date.now();
  // 16 instances × (1 read + 1 write) + scan pages: about 34 requests; 10 go at once, the rest at 12 per second.
  await accounts.backfill({ segments: 1, concurrency: 4, throttle: { requestsPerSecond: 12 } });
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  await expectAccountRows(model, history);
});

test('a row that fails for good stops the backfill with BackfillFailedError naming its instance; with a park policy it is parked and counted', async () => {
  const { events, history } = await writeHistory(10);
  const isPoison = (event: LedgerEvent) => event.streamId === 'ab' && event.type === 'Deposited';
  const retrying = accountsProjection(ledgerStream(client, events, 'A'), accountModel(client, viewsTable, `Failing${++models}`), {
    revision: false,
    isPoison,
  });
  const failure = await retrying.backfill({ segments: 1 }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(BackfillFailedError);
  expect(failure).toMatchObject({ code: 'projector.backfillFailed', instance: 'A#ab' });

  const model = accountModel(client, viewsTable, `Parking${++models}`);
  const parking = accountsProjection(ledgerStream(client, events, 'A'), model, { revision: false, isPoison, poison: { park: { afterAttempts: 1 } } });
  expect(await parking.backfill({ segments: 2 })).toMatchObject({ instancesDone: 10, rowsParked: 1, done: true });
  expect((await collect(parking.parkedRows())).map((row) => row.key)).toEqual([{ id: 'ab' }]);
  const fixed = accountsProjection(ledgerStream(client, events, 'A'), model, { revision: false, poison: { park: { afterAttempts: 1 } } });
  await fixed.retryParked();
  await expectAccountRows(model, history);
});

/** The progress items a projection's backfill run left in the views table. */
async function savedProgress(projection: string, events: string, run = 'default'): Promise<number> {
  const documents = DynamoDBDocumentClient.from(client);
  const { Items } = await documents.send(
    new QueryCommand({
      TableName: viewsTable,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `_dfBackfill#${projection}#${run}#${events}` },
      ConsistentRead: true,
    }),
  );
  return Items?.length ?? 0;
}

/** Starts a backfill and aborts it once `instancesDone` reaches `after`; resolves when it has rejected. */
async function interruptedBackfill(projection: { backfill: (options: object) => Promise<BackfillProgress> }, options: object, after: number) {
  const controller = new AbortController();
  const stopped = projection.backfill({
    ...options,
    concurrency: 1,
    pageSize: 2,
    progressIntervalMs: 0,
    signal: controller.signal,
    onProgress: (progress: BackfillProgress) => {
      if (progress.instancesDone >= after) controller.abort(new Error('stopped'));
    },
  });
  await expect(stopped).rejects.toThrow('stopped');
}

test('with afterAttempts: 3 a poison row is tried until it parks and the backfill goes on', async () => {
  const { events, history } = await writeHistory(10);
  const isPoison = (event: LedgerEvent) => event.streamId === 'ab' && event.type === 'Deposited';
  const model = accountModel(client, viewsTable, `Parking${++models}`);
  const poison = { park: { afterAttempts: 3 } };
  const parking = accountsProjection(ledgerStream(client, events, 'A'), model, { revision: false, isPoison, poison });
  expect(await parking.backfill({ segments: 2, retry: { backoff: { initialMs: 1, maxMs: 1 } } })).toMatchObject({
    instancesDone: 10,
    rowsParked: 1,
    done: true,
  });
  expect((await collect(parking.parkedRows())).map((row) => [row.key, row.attempts])).toEqual([[{ id: 'ab' }, 3]]);
  await accountsProjection(ledgerStream(client, events, 'A'), model, { revision: false, poison }).retryParked();
  await expectAccountRows(model, history);
});

test('restart: true forgets the saved progress of every segment, also of a run with more segments, and of a restart cut short', async () => {
  const { events, history } = await writeHistory(24);
  const model = accountModel(client, viewsTable, `Restarted${++models}`);
  const accounts = accountsProjection(ledgerStream(client, events, 'A'), model, { revision: false });
  await interruptedBackfill(accounts, { segments: 4 }, 4);
  // A restart with fewer segments, itself cut short, then resumed and finished.
  await interruptedBackfill(accounts, { segments: 2, restart: true }, 2);
  await expect(accounts.backfill({ segments: 4 })).rejects.toThrow(ConfigurationError);
  expect(await accounts.backfill({ segments: 2 })).toMatchObject({ resumed: true, instancesDone: 24, done: true });
  expect(await savedProgress(accounts.name, events)).toBe(0);
  // A row lost since comes back: nothing stale is resumed (no instance is passed over).
  await DynamoDBDocumentClient.from(client).send(new DeleteCommand({ TableName: viewsTable, Key: model.keyOf({ id: 'ab' }) }));
  expect(await accounts.backfill()).toMatchObject({ resumed: false, instancesDone: 24, rowsWritten: 1 });
  await expectAccountRows(model, history);

  await interruptedBackfill(accounts, { segments: 4 }, 4);
  expect(await accounts.backfill({ segments: 2, restart: true })).toMatchObject({ resumed: false, instancesDone: 24, done: true });
  expect(await savedProgress(accounts.name, events)).toBe(0);
});

test("a backfill starts from the rows' checkpoints: events a row already has are never folded again", async () => {
  const { events, history } = await writeHistory(8);
  const model = accountModel(client, viewsTable, `UpToDate${++models}`);
  await accountsProjection(ledgerStream(client, events, 'A'), model, { revision: false }).backfill({ segments: 1 });
  // A new version of evolve that chokes on every event: the rows hold them all, so it is never asked.
  let folded = 0;
  const isPoison = () => {
    folded++;
    return true;
  };
  const next = accountsProjection(ledgerStream(client, events, 'A'), model, { revision: false, isPoison });
  expect(await next.backfill({ segments: 2 })).toMatchObject({ instancesDone: 8, eventsApplied: 0, rowsWritten: 0, done: true });
  expect(folded).toBe(0);
  await expectAccountRows(model, history);
});

test('a throttled backfill counts every request it sends, its progress writes too', async () => {
  const { events, history } = await writeHistory(16);
  const counting = new DynamoDBClient(localConfig());
  let sent = 0;
  counting.middlewareStack.add((next) => async (args) => {
    sent++;
    return next(args);
  });
  try {
    const model = accountModel(counting, viewsTable, `Counted${++models}`);
    const accounts = accountsProjection(ledgerStream(counting, events, 'A'), model, { revision: false });
    const requestsPerSecond = 40;
    const started = Date.now();
    // One scanned item a page: a progress write per item, as many as the scan's pages.
    await accounts.backfill({ segments: 1, concurrency: 4, pageSize: 1, throttle: { requestsPerSecond } });
    const elapsed = Date.now() - started;
    // A second's worth may go at once, then no more than the rate.
    expect(sent).toBeLessThanOrEqual(requestsPerSecond * (1 + elapsed / 1000));
    await expectAccountRows(accountModel(client, viewsTable, model.name), history);
  } finally {
    counting.destroy();
  }
});

test('a resumed backfill says so although the pages it resumed found no instance', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'backfill-events');
  // Only B instances: every page of a scan for A's instances finds none.
  const b = ledgerStream(client, events.name, 'B');
  for (const id of ['a', 'b', 'aa'])
    await b.append({ id }, [
      { type: 'Deposited', data: { owner: 'b', amount: 1 } },
      { type: 'Deposited', data: { owner: 'b', amount: 2 } },
    ]);
  const accounts = accountsProjection(ledgerStream(client, events.name, 'A'), accountModel(client, viewsTable, `Empty${++models}`), {
    revision: false,
  });
  await interruptedBackfill(accounts, { segments: 1 }, 0);
  expect(await accounts.backfill({ segments: 1 })).toMatchObject({ resumed: true, instancesDone: 0, done: true });
});

test('rebuild of a bad stream id rejects rather than throwing at the call', async () => {
  const accounts = accountsProjection(ledgerStream(client, 'nowhere', 'A'), accountModel(client, viewsTable, `Bad${++models}`), { revision: false });
  let call: Promise<unknown> | undefined;
  expect(() => (call = accounts.rebuild({} as never))).not.toThrow();
  await expect(call).rejects.toThrow();
});
