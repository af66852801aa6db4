/**
 * Forgetting a subject: its key goes and a marker stays; every reader then reads its personal fields as
 * their declared replacements (folds and projections keep working), snapshots that held its data are left
 * unread, a rebuild leaves no personal value in its rows, and no new key is ever made for it.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { DecodeError, EventStream, SubjectForgottenError, ValidationError, olderVersion } from 'dynafold';
import { Erased, customerProfileProjection, evolveCustomer, noCustomer, profileOf, type CustomerEvent } from '../support/customers';
import { customerSetupOfFile } from '../support/customer-setup';
import { plaintextIn, scanTable } from '../support/plaintext';
import { countRequests } from '../support/requests';

const setup = customerSetupOfFile('forget');
const { client, tables } = setup;
const requests = countRequests(client);
const keys = (cacheLifetimeMs?: number) => setup.keys(cacheLifetimeMs === undefined ? {} : { cacheLifetimeMs });

const registered = (name: string) => ({ type: 'Registered', data: { name, email: `${name.toLowerCase()}@example.com`, country: 'UK' } }) as const;
const referred = (friendId: string, friendName: string) => ({ type: 'Referred', data: { friendId, friendName } }) as const;
const moved = (street: string) => ({ type: 'AddressChanged', data: { address: { street, city: 'London' } } }) as const;
const ordered = (orderId: string) => ({ type: 'OrderPlaced', data: { orderId, total: 10 } }) as const;
const fold = { initial: noCustomer, evolve: evolveCustomer };

test('a forgotten subject reads redacted everywhere, the others in the clear; the key is gone and the marker stays', async () => {
  const writer = keys();
  const Customers = setup.customers(writer);
  await Customers.append({ customerId: 'f-1' }, [registered('Ada'), moved('Engine Row')]);
  await Customers.append({ customerId: 'f-1' }, [referred('f-2', 'Grace'), ordered('o-1')]);
  await Customers.append({ customerId: 'f-2' }, [registered('Grace')]);
  // A process that already read them, whose cache lives on; and one whose cache expires at once.
  const other = setup.customers(keys(0));
  expect((await other.read({ customerId: 'f-2' }))[0]?.data).toMatchObject({ name: 'Grace' });

  const forgotten = await writer.forget('f-2');
  expect(forgotten).toMatchObject({ subject: 'f-2', alreadyForgotten: false, keyDeleted: true });
  expect(Date.parse(forgotten.settledAt) - Date.parse(forgotten.forgottenAt)).toBeGreaterThanOrEqual(writer.cacheLifetimeMs - 1000);

  for (const reader of [Customers, other]) {
    const events = (await reader.read({ customerId: 'f-1' })) as CustomerEvent[];
    expect(events.map((event) => event.data)).toEqual([
      { name: 'Ada', email: 'ada@example.com', country: 'UK' },
      { address: { street: 'Engine Row', city: 'London' } },
      { friendId: 'f-2', friendName: Erased.friendName },
      { orderId: 'o-1', total: 10 },
    ]);
    expect((await reader.read({ customerId: 'f-2' }))[0]?.data).toEqual({ name: Erased.name, email: Erased.email, country: 'UK' });
    // Folds keep working on the redacted history.
    expect((await reader.load({ customerId: 'f-1' }, fold)).state).toEqual(events.reduce(evolveCustomer, noCustomer));
  }
  const keyItem = await client.send(new GetItemCommand({ TableName: tables.subjectKeys, Key: { pk: { S: 'subject#f-2' }, sk: { S: 'key' } } }));
  expect(Object.keys(keyItem.Item ?? {}).sort()).toEqual(['createdAt', 'forgottenAt', 'forgottenBy', 'pk', 'sk']);

  // Idempotent: the first time stands.
  expect(await writer.forget('f-2')).toMatchObject({ alreadyForgotten: true, keyDeleted: false, forgottenAt: forgotten.forgottenAt });
});

test('no new key is ever made for a forgotten subject: its personal data is refused and nothing is written, other data goes on', async () => {
  const writer = keys();
  const Customers = setup.customers(writer);
  await writer.forget('f-3');
  requests.reset();
  await expect(Customers.append({ customerId: 'f-3' }, [registered('Linus')])).rejects.toThrow(SubjectForgottenError);
  expect(requests.count('PutItemCommand') + requests.count('TransactWriteItemsCommand')).toBe(0);
  // Another process, which never saw the subject, learns it from the marker.
  await expect(setup.customers(keys()).append({ customerId: 'f-3' }, [registered('Linus')])).rejects.toThrow(/was forgotten at/);
  await expect(Customers.append({ customerId: 'f-4' }, [referred('f-3', 'Linus')])).rejects.toThrow(SubjectForgottenError);
  expect(await Customers.version({ customerId: 'f-3' })).toBe(0);
  expect(await Customers.version({ customerId: 'f-4' })).toBe(0);
  // Events of the subject without personal fields still append.
  await Customers.append({ customerId: 'f-3' }, [ordered('o-9')]);
  expect(await Customers.version({ customerId: 'f-3' })).toBe(1);
  await expect(writer.forget('')).rejects.toThrow(ValidationError);
});

test('a snapshot that holds a forgotten subject’s data is left unread: the load folds the redacted events instead', async () => {
  const writer = keys();
  const Customers = setup.customers(writer);
  await Customers.append({ customerId: 'f-5' }, [registered('Ada'), referred('f-6', 'Grace')]);
  await Customers.append({ customerId: 'f-5' }, [ordered('o-1'), ordered('o-2')]);
  const options = { snapshot: { every: 2 } };
  const before = await Customers.load({ customerId: 'f-5' }, fold, options);
  expect(before.state.friends).toEqual(['Grace']);
  expect(await Customers.loadSnapshot({ customerId: 'f-5' })).toMatchObject({ version: 4 });

  await writer.forget('f-6');
  expect(await Customers.loadSnapshot({ customerId: 'f-5' })).toBeUndefined();
  let folded = 0;
  const counting = { initial: noCustomer, evolve: (state: typeof noCustomer, event: CustomerEvent) => ((folded += 1), evolveCustomer(state, event)) };
  const after = await Customers.load({ customerId: 'f-5' }, counting, options);
  expect(folded).toBe(4);
  expect(after.state).toEqual({ ...before.state, friends: [Erased.friendName] });

  // The snapshot the next load saves holds only the subject still known (f-5): forgetting f-6 again changes nothing.
  await Customers.append({ customerId: 'f-5' }, [ordered('o-3'), ordered('o-4')]);
  await Customers.load({ customerId: 'f-5' }, fold, options);
  expect(await Customers.loadSnapshot({ customerId: 'f-5' })).toMatchObject({ version: 6, state: { name: 'Ada', friends: [Erased.friendName] } });
  await writer.forget('f-5');
  expect(await Customers.loadSnapshot({ customerId: 'f-5' })).toBeUndefined();
  expect((await Customers.load({ customerId: 'f-5' }, fold, options)).state).toMatchObject({ name: Erased.name, email: Erased.email, orders: 4 });
});

test('a snapshot saved by hand is sealed for the subjects of the events it stands on', async () => {
  const writer = keys();
  const Customers = setup.customers(writer);
  await Customers.append({ customerId: 'f-7' }, [registered('Ada'), referred('f-8', 'Grace')]);
  expect(await Customers.saveSnapshot({ customerId: 'f-7' }, { version: 2, state: { said: 'Ada and Grace' } })).toBe(true);
  const item = (await scanTable(client, tables.events as string)).find(([label]) => label.includes('Customer#f-7') && label.includes('snapshot'));
  expect(plaintextIn([item as readonly [string, unknown]], ['Ada and Grace'])).toEqual([]);
  expect((await Customers.loadSnapshot({ customerId: 'f-7' }))?.state).toEqual({ said: 'Ada and Grace' });
  await writer.forget('f-8');
  expect(await Customers.loadSnapshot({ customerId: 'f-7' })).toBeUndefined();
});

test('projections keep working after a forget, and a rebuild leaves no personal value in the rows', async () => {
  const writer = keys();
  const Customers = setup.customers(writer);
  const profiles = setup.profiles();
  const projection = customerProfileProjection(Customers, profiles);
  await Customers.append({ customerId: 'f-9' }, [registered('Barbara'), moved('Liskov Lane')]);
  await projection.catchUp({ customerId: 'f-9' });
  expect((await profiles.get({ customerId: 'f-9' }, { consistent: true }))?.name).toBe('Barbara');

  await writer.forget('f-9');
  // Delivery goes on: a new event folds onto the row as it is.
  await Customers.append({ customerId: 'f-9' }, [ordered('o-1')]);
  await projection.catchUp({ customerId: 'f-9' });
  expect((await profiles.get({ customerId: 'f-9' }, { consistent: true }))?.orders).toBe(1);
  // The rebuild re-derives it from the redacted history.
  await projection.rebuild({ customerId: 'f-9' });
  const events = (await Customers.read({ customerId: 'f-9' })) as CustomerEvent[];
  expect(await profiles.get({ customerId: 'f-9' }, { consistent: true })).toMatchObject(profileOf('f-9', events));
  expect(plaintextIn(await scanTable(client, tables.readModels as string), ['Barbara', 'barbara@example.com', 'Liskov Lane'])).toEqual([]);
});

test('an event stored at an older version of its type reads its older fields as declared for that version, then upcasts', async () => {
  const writer = keys();
  const base = { client, table: tables.events as string, name: 'Member', streamId: ['memberId'] } as const;
  const RegisteredV1 = z.object({ name: z.string() });
  const older = new EventStream({
    ...base,
    events: { Registered: RegisteredV1 },
    personalData: { keys: writer, events: { Registered: { subject: { streamId: 'memberId' }, fields: { name: '[erased]' } } } },
  });
  await older.append({ memberId: 'm-1' }, [{ type: 'Registered', data: { name: 'Hedy Lamarr' } }]);
  const today = (declareOlder: boolean) =>
    new EventStream({
      ...base,
      events: { Registered: z.object({ fullName: z.string(), initials: z.string() }) },
      versions: { Registered: { older: [olderVersion(1, RegisteredV1, (v1) => ({ fullName: v1.name, initials: v1.name.slice(0, 1) }))] } },
      personalData: {
        keys: writer,
        events: { Registered: { subject: { streamId: 'memberId' }, fields: { fullName: '[erased]', initials: '?' } } },
        ...(declareOlder ? { older: { Registered: { 1: { subject: { streamId: 'memberId' }, fields: { name: '[erased]' } } } } } : {}),
      },
    });
  expect((await today(true).read({ memberId: 'm-1' }))[0]?.data).toEqual({ fullName: 'Hedy Lamarr', initials: 'H' });
  await writer.forget('m-1');
  expect((await today(true).read({ memberId: 'm-1' }))[0]?.data).toEqual({ fullName: '[erased]', initials: '[' });
  // Without a replacement for the older version's field, the event can't be read redacted: it says what to declare.
  await expect(today(false).read({ memberId: 'm-1' })).rejects.toThrow(DecodeError);
  await expect(today(false).read({ memberId: 'm-1' })).rejects.toThrow(/no replacement for it at version 1 of Registered/);
});
