import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { eventsTableDefinition, processBatch, type AnyProjection, type BackfillProgress, type RowOutcome } from 'dynafold';
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
