import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { QueryCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { ConfigurationError, eventsTableDefinition, type AnyProjection, type BackfillProgress, type RowOutcome } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { injectFaults } from '../../chaos/faults';
import { deliver, deliveries, propertySettings, propertyTimeout } from '../support/delivery';
import { createTestTable, localConfig, testClient } from '../support/dynamo';
import {
  accountModel,
  accountsProjection,
  eventKey,
  ledgerStream,
  ownerModel,
  ownersProjection,
  toNewEvent,
  workload,
  zoneModel,
  zonesProjection,
  type LedgerAppend,
  type LedgerEvent,
  type LedgerStream,
} from '../support/ledger';
import { createViewsTable, repeated } from '../support/ledger-case';
import { expectAccountRows, expectOwnerRows, expectZoneRows } from '../support/ledger-truth';
import { seededRandom } from '../support/random';
import { insertsOnly, readStreamRecords } from '../support/stream-records';

// A projection added to a system with history: its backfill runs while the history goes on being
// written and delivered (a share of the old records too, as a redelivery would), out of order, with
// lost races. Every row must equal its fold, and each event must be applied once: by the backfill or
// by a delivery, never both.
const client = testClient();
let viewsTable: string;
let cases = 0;

beforeAll(async () => {
  viewsTable = await createViewsTable(client);
});
afterAll(() => client.destroy());

const plans = fc.record({
  segments: fc.integer({ min: 1, max: 3 }),
  concurrency: fc.integer({ min: 1, max: 4 }),
  pageSize: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
  redelivered: fc.constantFrom(0, 0.5, 1),
  lostRaces: fc.constantFrom(0, 0.1),
  revision: fc.boolean(),
});

test(
  'a backfill while appends and deliveries go on: every row equals its fold, every event applied once by one of them',
  async () => {
    await fc.assert(
      fc.asyncProperty(workload, workload, deliveries, plans, async (past, live, delivery, plan) => {
        const events = await createTestTable(client, eventsTableDefinition, 'backfill-events');
        const rows = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
        injectFaults(rows, { seed: delivery.seed, rate: plan.lostRaces, kinds: ['conditional'], readModelTables: [viewsTable] });
        try {
          const writers = { A: ledgerStream(client, events.name, 'A'), B: ledgerStream(client, events.name, 'B') };
          const history = new Map<string, LedgerEvent[]>();
          const append = async (appends: ReadonlyArray<LedgerAppend>) => {
            for (const { stream, id, events: batch } of appends) {
              const { events: written } = await writers[stream].append({ id }, batch.map(toNewEvent) as never);
              history.set(`${stream}#${id}`, [...(history.get(`${stream}#${id}`) ?? []), ...(written as LedgerEvent[])]);
            }
          };
          await append(past);
          const before = insertsOnly(await readStreamRecords(events.streamArn as string));

          const name = `Backfill${++cases}x${Date.now().toString(36)}`;
          const a: LedgerStream = ledgerStream(rows, events.name, 'A');
          const b: LedgerStream = ledgerStream(rows, events.name, 'B');
          const projections: Record<string, AnyProjection & { backfill: (options: object) => Promise<BackfillProgress> }> = {
            accounts: accountsProjection(a, accountModel(rows, viewsTable, `${name}Account`), { revision: plan.revision }),
            zones: zonesProjection(b, zoneModel(rows, viewsTable, `${name}Zone`)),
            owners: ownersProjection(a, b, ownerModel(rows, viewsTable, `${name}Owner`), {}),
          };
          const applied = new Map<string, string[]>(Object.keys(projections).map((key) => [key, []]));
          const goingOn = async () => {
            await append(live);
            const seen = new Set(before.map((record) => record.dynamodb?.SequenceNumber));
            const fresh = insertsOnly(await readStreamRecords(events.streamArn as string)).filter(
              (record) => !seen.has(record.dynamodb?.SequenceNumber),
            );
            const random = seededRandom(delivery.seed);
            const redelivered = before.filter(() => random() < plan.redelivered);
            await deliver([...redelivered, ...fresh], delivery, async (batch) => {
              const result = await processBatch(batch, { projections, source: 'lambda' });
              for (const [key, outcomes] of Object.entries(result.outcomes) as Array<[string, ReadonlyArray<RowOutcome>]>) {
                for (const outcome of outcomes) applied.get(key)?.push(...outcome.applied.map(eventKey));
              }
              return result.response;
            });
          };
          const settings = {
            segments: plan.segments,
            concurrency: plan.concurrency,
            ...(plan.pageSize === undefined ? {} : { pageSize: plan.pageSize }),
          };
          const [backfilled] = await Promise.all([
            Promise.all(Object.entries(projections).map(async ([key, projection]) => [key, await projection.backfill(settings)] as const)),
            goingOn(),
          ]);

          const expected = {
            accounts: (await expectAccountRows(accountModel(client, viewsTable, `${name}Account`), history)).applied,
            zones: await expectZoneRows(zoneModel(client, viewsTable, `${name}Zone`), history),
            owners: await expectOwnerRows(ownerModel(client, viewsTable, `${name}Owner`), history),
          };
          for (const [key, progress] of backfilled) {
            const delivered = applied.get(key) ?? [];
            const want = expected[key as keyof typeof expected];
            expect({ key, repeated: repeated(delivered), unexpected: delivered.filter((event) => !want.includes(event)) }).toEqual({
              key,
              repeated: [],
              unexpected: [],
            });
            // What deliveries did not apply, the backfill did: once.
            expect({ key, total: delivered.length + progress.eventsApplied, done: progress.done }).toEqual({ key, total: want.length, done: true });
          }
        } finally {
          rows.destroy();
          await client.send(new DeleteTableCommand({ TableName: events.name }));
        }
      }),
      propertySettings(8),
    );
  },
  propertyTimeout(8),
);

/** A backfill cut short (after `stopAfter` instances), or run to the end when it gets there first. */
const runs = fc.record({ segments: fc.integer({ min: 1, max: 4 }), restart: fc.boolean(), stopAfter: fc.integer({ min: 0, max: 4 }) });
const histories = fc.record({
  /** The share of each instance's events a row already holds (an older version of the projection applied them). */
  held: fc.constantFrom(0, 0.5, 1),
  /** Rows whose every deposit chokes the new `evolve`, parked after `afterAttempts` (none: no poison). */
  poison: fc.option(fc.record({ ids: fc.subarray(['a', 'b'], { minLength: 1 }), afterAttempts: fc.integer({ min: 1, max: 3 }) }), {
    nil: undefined,
  }),
  runs: fc.array(runs, { maxLength: 3 }),
  segments: fc.integer({ min: 1, max: 4 }),
});

test(
  'backfills cut short and restarted with other segment counts, over rows holding part of their events and poison rows: each row equals its fold, no progress left',
  async () => {
    await fc.assert(
      fc.asyncProperty(workload, histories, async (past, plan) => {
        const events = await createTestTable(client, eventsTableDefinition, 'backfill-events');
        try {
          const stream = ledgerStream(client, events.name, 'A');
          const history = new Map<string, LedgerEvent[]>();
          for (const { stream: name, id, events: batch } of past.filter((append) => append.stream === 'A')) {
            const { events: written } = await stream.append({ id }, batch.map(toNewEvent) as never);
            history.set(`${name}#${id}`, [...(history.get(`${name}#${id}`) ?? []), ...(written as LedgerEvent[])]);
          }
          const model = accountModel(client, viewsTable, `Restarts${++cases}x${Date.now().toString(36)}`);
          const older = accountsProjection(stream, model, { revision: false });
          for (const instance of history.values()) await older.applyBatch(instance.slice(0, Math.round(instance.length * plan.held)) as never);

          const poisonIds = plan.poison?.ids ?? [];
          const poison = plan.poison === undefined ? {} : { poison: { park: { afterAttempts: plan.poison.afterAttempts } } };
          const isPoison = (event: LedgerEvent) => poisonIds.includes(event.streamId) && event.type === 'Deposited';
          const accounts = accountsProjection(stream, model, { revision: false, isPoison, ...poison });
          const quick = { retry: { backoff: { initialMs: 1, maxMs: 1 } }, progressIntervalMs: 0, concurrency: 2, pageSize: 2 };
          for (const run of plan.runs) {
            const controller = new AbortController();
            const stopped = accounts.backfill({
              ...quick,
              segments: run.segments,
              restart: run.restart,
              signal: controller.signal,
              onProgress: (progress: BackfillProgress) => progress.instancesDone >= run.stopAfter && controller.abort(new Error('stopped')),
            });
            // Stopped, finished first, or refused: a saved run of another segment count is resumed only by a restart.
            const failure: unknown = await stopped.then(() => undefined).catch((error: unknown) => error);
            if (failure instanceof ConfigurationError) expect(run.restart).toBe(false);
            else if (failure !== undefined) expect(failure).toMatchObject({ message: 'stopped' });
          }
          const finished = await accounts
            .backfill({ ...quick, segments: plan.segments })
            .catch((error: unknown) =>
              error instanceof ConfigurationError ? accounts.backfill({ ...quick, segments: plan.segments, restart: true }) : Promise.reject(error),
            );
          expect(finished.done).toBe(true);
          const { Items: left } = await DynamoDBDocumentClient.from(client).send(
            new QueryCommand({
              TableName: viewsTable,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': `_dfBackfill#${accounts.name}#default#${events.name}` },
              ConsistentRead: true,
            }),
          );
          expect(left).toEqual([]);
          // Only poison rows are parked; once the fix is deployed they catch up.
          for await (const row of accounts.parkedRows()) expect(poisonIds).toContain(row.key['id']);
          await accountsProjection(stream, model, { revision: false, ...poison }).retryParked();
          await expectAccountRows(model, history);
        } finally {
          await client.send(new DeleteTableCommand({ TableName: events.name }));
        }
      }),
      propertySettings(6),
    );
  },
  propertyTimeout(6),
);
