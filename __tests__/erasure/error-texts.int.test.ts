/**
 * What outlives a forget in a row's records: the message of an error `evolve` threw, written from the event
 * as it read then. A row keeps each error's name and code and its message cut short; a rebuild re-derives
 * the row's records from the redacted history, clearing their messages and passing over the events the row
 * skipped, so after a forget and a rebuild no attribute of the row holds the subject's data.
 */
import { Projection, RecordedErrorLimits } from 'dynafold';
import { RowAttributes } from '../../lib/read-model/read-model-keys';
import { customerProfiles, type CustomerEvent, type CustomerProfile } from '../support/customers';
import { customerSetupOfFile } from '../support/customer-setup';
import { plaintextIn, scanTable } from '../support/plaintext';

const setup = customerSetupOfFile('errortexts');
const { client, tables } = setup;

const registered = (email: string) => ({ type: 'Registered', data: { name: 'Ada', email, country: 'UK' } }) as const;
const ordered = (orderId: string) => ({ type: 'OrderPlaced', data: { orderId, total: 10 } }) as const;

/** A profile projection whose `evolve` refuses an email outside example.org, naming it in its message (what not to do). */
function strictProfiles(Customers: ReturnType<typeof setup.customers>, afterAttempts: number) {
  return new Projection({
    stream: Customers,
    readModel: customerProfiles(client, tables.readModels as string),
    key: (streamId) => ({ customerId: streamId.customerId }),
    initial: (streamId): CustomerProfile => ({ customerId: streamId.customerId, friends: [], orders: 0, version: 0 }),
    evolve: (row, event: CustomerEvent): CustomerProfile => {
      if (event.type === 'OrderPlaced') return { ...row, orders: row.orders + 1 };
      if (event.type !== 'Registered') return row;
      if (!event.data.email.endsWith('@example.org')) throw new Error(`bad email ${event.data.email}`);
      return { ...row, name: event.data.name, email: event.data.email };
    },
    checkpoint: 'version',
    poison: { park: { afterAttempts } },
  });
}

const recordsOf = async (customerId: string) => {
  const item = await customerProfiles(client, tables.readModels as string).getItem({ customerId });
  return { parked: item?.[RowAttributes.parked], failures: item?.[RowAttributes.failures], skipped: item?.[RowAttributes.skippedEvents] };
};

test('an evolve error naming personal data leaves no trace of it in the rows once the subject is forgotten and they are rebuilt', async () => {
  const keys = setup.keys();
  const Customers = setup.customers(keys);
  const profiles = strictProfiles(Customers, 2);
  // Parked on the event, its failure counted on the row, and skipped on purpose (then applied past).
  const parked = (await Customers.append({ customerId: 'et-1' }, [ordered('o-1'), registered('ada@example.com')])).events;
  const counted = (await Customers.append({ customerId: 'et-2' }, [ordered('o-2'), registered('grace@example.com')])).events;
  const skipped = (await Customers.append({ customerId: 'et-3' }, [ordered('o-3'), registered('linus@example.com')])).events;
  for (let attempt = 0; attempt < 2; attempt++) await profiles.applyBatch([...parked, ...skipped]);
  await profiles.applyBatch(counted);
  expect(await profiles.skipParked({ customerId: 'et-3' })).toMatchObject({ status: 'applied' });
  await Customers.append({ customerId: 'et-3' }, [ordered('o-4')]);
  await profiles.catchUp({ customerId: 'et-3' });
  expect(await recordsOf('et-1')).toMatchObject({ parked: { error: { name: 'Error', message: 'bad email ada@example.com' } } });
  expect(await recordsOf('et-2')).toMatchObject({ failures: { error: { message: 'bad email grace@example.com' } } });
  expect(await recordsOf('et-3')).toMatchObject({ skipped: [{ error: { message: 'bad email linus@example.com' } }] });

  for (const subject of ['et-1', 'et-2', 'et-3']) await keys.forget(subject);
  for (const customerId of ['et-1', 'et-2', 'et-3']) await profiles.rebuild({ customerId });

  const secrets = ['ada@example.com', 'grace@example.com', 'linus@example.com', 'Ada'];
  expect(plaintextIn(await scanTable(client, tables.readModels as string), secrets)).toEqual([]);
  // The records stay, with what failed: the error's name, its event, its attempts.
  const cleared = { name: 'Error', message: '(cleared by a rebuild)' };
  expect(await recordsOf('et-1')).toMatchObject({ parked: { error: cleared, attempts: 2, event: { version: 2, type: 'Registered' } } });
  expect(await recordsOf('et-2')).toMatchObject({ failures: { error: cleared, attempts: 1 } });
  expect(await recordsOf('et-3')).toMatchObject({ skipped: [{ error: cleared, event: { version: 2 } }] });
  // The skipped event is passed over again (it fails on the redacted email too); the row is what it was.
  expect(await profiles.readModel.get({ customerId: 'et-3' }, { consistent: true })).toMatchObject({ orders: 2, version: 3 });
  expect((await profiles.readModel.get({ customerId: 'et-3' }, { consistent: true }))?.email).toBeUndefined();
});

test('a recorded message is cut to its limit, whatever evolve wrote; a rebuild that fails on an event writes nothing', async () => {
  const keys = setup.keys();
  const Customers = setup.customers(keys);
  const profiles = strictProfiles(Customers, 1);
  const long = `a${'x'.repeat(2_000)}@example.com`;
  const events = (await Customers.append({ customerId: 'et-4' }, [ordered('o-1'), registered(long)])).events;
  expect((await profiles.applyBatch(events)).outcomes[0]).toMatchObject({ status: 'parked' });
  const message = ((await recordsOf('et-4')).parked as { error: { message: string } }).error.message;
  expect(message).toHaveLength(RecordedErrorLimits.messageChars);
  expect(message.endsWith('…')).toBe(true);

  // A row whose history now fails before its checkpoint (an evolve changed since): the rebuild rejects and the row stays as it was.
  const good = (await Customers.append({ customerId: 'et-5' }, [ordered('o-1'), registered('ada@example.org'), ordered('o-2')])).events;
  await profiles.applyBatch(good);
  const before = await profiles.readModel.getItem({ customerId: 'et-5' });
  await keys.forget('et-5');
  await expect(profiles.rebuild({ customerId: 'et-5' })).rejects.toThrow('bad email [erased]');
  expect(await profiles.readModel.getItem({ customerId: 'et-5' })).toEqual(before);
});
