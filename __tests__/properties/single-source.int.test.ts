import fc from 'fast-check';
import { deliveries, propertySettings, propertyTimeout } from '../support/delivery';
import { testClient } from '../support/dynamo';
import { accountModel, accountsProjection, workload, zoneModel, zonesProjection, type LedgerMessage } from '../support/ledger';
import { createViewsTable, outboxMessages, repeated, runLedgerCase } from '../support/ledger-case';
import { expectAccountRows, expectZoneRows } from '../support/ledger-truth';
import { expectParkedInTime, fixInRounds, maybePoison, poisonOf, poisonOptions, type Poison } from '../support/poison-case';

// Single-source rows (accounts with tombstones, recreation, skips, rejections, revision, outbox) and
// event-keyed rows (zones), on ids that collide across streams, delivered out of order, duplicated, on
// parallel lanes with retries and lost races; in half the cases some events are poison (several in
// a row, or one apart), their rows park, and the fix comes in two rounds of retryParked (some of the
// events fixed, then the rest). The oracle is a fold of the store written for the test.
const client = testClient();
let viewsTable: string;

beforeAll(async () => {
  viewsTable = await createViewsTable(client);
});
afterAll(() => client.destroy());

const options = fc.record({ revision: fc.boolean(), outbox: fc.boolean(), lostRaces: fc.constantFrom(0, 0.1, 0.3) });

test(
  'every account and zone row equals the fold of its stream, and every event is applied exactly once',
  async () => {
    await fc.assert(
      fc.asyncProperty(workload, deliveries, options, maybePoison, async (work, delivery, { revision, outbox, lostRaces }, plan) => {
        let poison: Poison | undefined;
        await runLedgerCase(
          client,
          viewsTable,
          { workload: work, delivery, lostRaces, outbox },
          (context) => {
            poison = plan === undefined ? undefined : poisonOf(plan, context.history);
            return {
              accounts: accountsProjection(context.a, accountModel(context.rows, viewsTable, `${context.name}Account`), {
                revision,
                ...(context.outboxTable === undefined ? {} : { outbox: context.outboxTable }),
                ...poisonOptions(poison),
              }),
              zones: zonesProjection(context.b, zoneModel(context.rows, viewsTable, `${context.name}Zone`), poisonOptions(poison)),
            };
          },
          async (context, applied, delivered) => {
            if (poison !== undefined) {
              for (const failed of delivered.failed.values()) expectParkedInTime(poison, failed);
              await fixInRounds(poison, delivered.projections, applied);
            }
            const accounts = accountModel(client, viewsTable, `${context.name}Account`);
            const zones = zoneModel(client, viewsTable, `${context.name}Zone`);
            const { applied: expectedApplied, messages: expectedMessages } = await expectAccountRows(accounts, context.history);
            const expectedZones = await expectZoneRows(zones, context.history);
            const accountsApplied = applied.get('accounts') ?? [];
            expect(repeated(accountsApplied)).toEqual([]);
            expect([...accountsApplied].sort()).toEqual([...expectedApplied].sort());
            const zonesApplied = applied.get('zones') ?? [];
            expect(repeated(zonesApplied)).toEqual([]);
            expect([...zonesApplied].sort()).toEqual(expectedZones.sort());

            if (context.outboxTable !== undefined) {
              const messages = await outboxMessages(client, context.outboxTable);
              // One message per applied event, in the row's order, saying what the row was right after it.
              expect(repeated(messages.map((message) => message.id))).toEqual([]);
              expect(messages.map((message) => message.message as LedgerMessage).sort(byEvent)).toEqual([...expectedMessages.values()].sort(byEvent));
              for (const partition of new Set(messages.map((message) => message.partition))) {
                const versions = messages
                  .filter((message) => message.partition === partition)
                  .map((message) => Number((message.message as LedgerMessage).event.split('@')[1]));
                expect({ partition, versions }).toEqual({ partition, versions: [...versions].sort((x, y) => x - y) });
              }
            }
          },
        );
      }),
      propertySettings(50),
    );
  },
  propertyTimeout(50),
);

function byEvent(x: LedgerMessage, y: LedgerMessage): number {
  return x.event < y.event ? -1 : x.event > y.event ? 1 : 0;
}
