import fc from 'fast-check';
import { deliveries, propertySettings, propertyTimeout } from '../support/delivery';
import { testClient } from '../support/dynamo';
import { accountModel, accountsProjection, ownerModel, ownersProjection, workload, type LedgerMessage } from '../support/ledger';
import { createViewsTable, outboxMessages, repeated, runLedgerCase } from '../support/ledger-case';
import { expectAccountRows, expectOwnerRows } from '../support/ledger-truth';
import { expectParkedInTime, fixInRounds, maybePoison, poisonOf, poisonOptions, type Poison } from '../support/poison-case';

// Multi-source rows (owners) fed by every instance of two streams whose ids collide with each other and
// with the owners, next to single-source accounts on the same records, delivered out of order, duplicated,
// on parallel lanes with retries and lost races; in half the cases some events are poison, so a row
// parks while its other sources keep writing, and the fix comes in two rounds of retryParked (some of the
// events fixed, then the rest). The oracle is a fold of the store written for the test.
const client = testClient();
let viewsTable: string;

beforeAll(async () => {
  viewsTable = await createViewsTable(client);
});
afterAll(() => client.destroy());

const options = fc.record({ outbox: fc.boolean(), lostRaces: fc.constantFrom(0, 0.1, 0.3) });

test(
  'every owner row equals the sum over all its source instances, each event applied exactly once, next to the accounts',
  async () => {
    await fc.assert(
      fc.asyncProperty(workload, deliveries, options, maybePoison, async (work, delivery, { outbox, lostRaces }, plan) => {
        let poison: Poison | undefined;
        await runLedgerCase(
          client,
          viewsTable,
          { workload: work, delivery, lostRaces, outbox },
          (context) => {
            poison = plan === undefined ? undefined : poisonOf(plan, context.history);
            return {
              owners: ownersProjection(context.a, context.b, ownerModel(context.rows, viewsTable, `${context.name}Owner`), {
                ...(context.outboxTable === undefined ? {} : { outbox: context.outboxTable }),
                ...poisonOptions(poison),
              }),
              accounts: accountsProjection(context.a, accountModel(context.rows, viewsTable, `${context.name}Account`), {
                revision: false,
                ...poisonOptions(poison),
              }),
            };
          },
          async (context, applied, delivered) => {
            if (poison !== undefined) {
              for (const failed of delivered.failed.values()) expectParkedInTime(poison, failed);
              await fixInRounds(poison, delivered.projections, applied);
            }
            const owners = ownerModel(client, viewsTable, `${context.name}Owner`);
            const accounts = accountModel(client, viewsTable, `${context.name}Account`);
            const folded = await expectOwnerRows(owners, context.history);
            const { applied: expectedAccounts } = await expectAccountRows(accounts, context.history);
            const ownersApplied = applied.get('owners') ?? [];
            expect(repeated(ownersApplied)).toEqual([]);
            expect([...ownersApplied].sort()).toEqual([...folded].sort());

            expect([...(applied.get('accounts') ?? [])].sort()).toEqual(expectedAccounts.sort());

            if (context.outboxTable !== undefined) {
              const messages = await outboxMessages(client, context.outboxTable);
              expect(repeated(messages.map((message) => message.id))).toEqual([]);
              expect(messages.map((message) => (message.message as LedgerMessage).event).sort()).toEqual([...folded].sort());
              // Per row, each source instance's messages come in version order.
              for (const partition of new Set(messages.map((message) => message.partition))) {
                const events = messages
                  .filter((message) => message.partition === partition)
                  .map((message) => (message.message as LedgerMessage).event);
                for (const instance of new Set(events.map((event) => event.split('@')[0]))) {
                  const versions = events.filter((event) => event.startsWith(`${instance}@`)).map((event) => Number(event.split('@')[1]));
                  expect({ partition, instance, versions }).toEqual({ partition, instance, versions: [...versions].sort((x, y) => x - y) });
                }
              }
            }
          },
        );
      }),
      propertySettings(40),
    );
  },
  propertyTimeout(40),
);
