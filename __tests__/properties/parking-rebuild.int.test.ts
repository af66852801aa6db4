import fc from 'fast-check';
import { Projection } from 'dynafold';
import { customerProfiles, type CustomerEvent, type CustomerProfile } from '../support/customers';
import { customerSetupOfFile } from '../support/customer-setup';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { plaintextIn, scanTable } from '../support/plaintext';

// A customer's row under a projection whose `evolve` refuses some emails with an error that names the
// email (what the personal data guide says not to do), through random appends, deliveries, retries and
// skips of the parked row, and rebuilds, then a forget of the customer and a last rebuild:
// - a rebuild resolves and leaves the row's fields as they were (the events the row skipped are passed over
//   again, a parked row stays parked);
// - after the forget and the rebuild, no item of the rows' table holds the customer's name or any email,
//   in its fields or in the records of failures, parked and skipped events; its fields are what they were,
//   redacted.
const setup = customerSetupOfFile('prop-parkrebuild');
const { client, tables } = setup;

type Step =
  { readonly kind: 'append'; readonly event: 'refused' | 'accepted' | 'order' } | { readonly kind: 'deliver' | 'retry' | 'skip' | 'rebuild' };

const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('append' as const),
        event: fc.constantFrom('refused' as const, 'accepted' as const, 'order' as const),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('deliver' as const) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('retry' as const, 'skip' as const, 'rebuild' as const) }) },
  ),
  { minLength: 3, maxLength: 14 },
);

/** Refuses an email at example.com, naming it; the redacted email (`[erased]`) is taken. */
function strictProfiles(afterAttempts: number) {
  return new Projection({
    stream: setup.customers(keys),
    readModel: customerProfiles(client, tables.readModels as string),
    key: (streamId) => ({ customerId: streamId.customerId }),
    initial: (streamId): CustomerProfile => ({ customerId: streamId.customerId, friends: [], orders: 0, version: 0 }),
    evolve: (row, event: CustomerEvent): CustomerProfile => {
      if (event.type === 'OrderPlaced') return { ...row, orders: row.orders + 1 };
      if (event.type !== 'Registered') return row;
      if (event.data.email.endsWith('@example.com')) throw new Error(`bad email ${event.data.email}`);
      return { ...row, name: event.data.name, email: event.data.email };
    },
    checkpoint: 'version',
    poison: { park: { afterAttempts } },
  });
}

let keys: ReturnType<typeof setup.keys>;
beforeAll(() => {
  keys = setup.keys();
});

let cases = 0;

test(
  'a rebuild leaves a row with parked, counted and skipped failures as it was; after a forget it clears every message that named the data',
  async () => {
    await fc.assert(
      fc.asyncProperty(steps, fc.constantFrom(1, 2), async (history, afterAttempts) => check(++cases, history, afterAttempts)),
      propertySettings(50),
    );
  },
  propertyTimeout(50),
);

async function check(n: number, history: ReadonlyArray<Step>, afterAttempts: number): Promise<void> {
  const customerId = `pr-${n}`;
  const key = { customerId };
  const Customers = setup.customers(keys);
  const profiles = strictProfiles(afterAttempts);
  const name = `Ada <${n}>`;
  const secrets = [name];
  let undelivered: Awaited<ReturnType<typeof Customers.append>>['events'] = [];
  const fields = async () => {
    const row = await profiles.readModel.get(key, { consistent: true, includeRemoved: true });
    if (row === undefined) return undefined;
    const { updatedAt: _updatedAt, ...rest } = row as typeof row & { updatedAt?: string };
    return rest;
  };

  for (const [index, step] of history.entries()) {
    switch (step.kind) {
      case 'append': {
        const event =
          step.event === 'order'
            ? { type: 'OrderPlaced' as const, data: { orderId: `o-${index}`, total: 1 } }
            : {
                type: 'Registered' as const,
                data: { name, email: `ada-${n}-${index}@example.${step.event === 'refused' ? 'com' : 'org'}`, country: 'UK' },
              };
        if (event.type === 'Registered') secrets.push(event.data.email);
        undelivered = [...undelivered, ...(await Customers.append(key, [event])).events];
        break;
      }
      case 'deliver':
        if (undelivered.length > 0) await profiles.applyBatch(undelivered);
        undelivered = [];
        break;
      case 'retry':
        await profiles.retryParked(key);
        break;
      case 'skip':
        await profiles.skipParked(key);
        break;
      case 'rebuild': {
        const before = await fields();
        await profiles.rebuild(key);
        expect(await fields()).toEqual(before);
        break;
      }
    }
  }

  const before = await fields();
  await keys.forget(customerId);
  await profiles.rebuild(key);
  const erased = (value: string | undefined) => (value === undefined ? undefined : '[erased]');
  expect(await fields()).toEqual(before === undefined ? undefined : { ...before, name: erased(before.name), email: erased(before.email) });
  expect(plaintextIn(await scanTable(client, tables.readModels as string), secrets)).toEqual([]);
}
