/**
 * A process's key cache against forgets and keys made elsewhere: a load or a key's creation in flight when
 * `forget` runs never puts the key back (the process reads the subject redacted and refuses its data from
 * the moment `forget` resolves), and a key this process once found missing is read again, so a key another
 * process made is found.
 */
import { KeyProviderError, SubjectForgottenError } from 'dynafold';
import type { KeyProvider } from 'dynafold/erasure';
import { Erased, customerStream, subjectKeys } from '../support/customers';
import { customerSetupOfFile } from '../support/customer-setup';
import { Gates, within } from '../support/gates';
import { testClient } from '../support/dynamo';

const setup = customerSetupOfFile('keycache');
const gatedClient = testClient();
afterAll(() => gatedClient.destroy());

const registered = (name: string) => ({ type: 'Registered', data: { name, email: `${name.toLowerCase()}@example.com`, country: 'UK' } }) as const;
const redacted = { name: Erased.name, email: Erased.email, country: 'UK' };

/** A process whose requests and provider calls wait at `gates` when made by an operation `gates` runs. */
function gatedProcess(gates: Gates, provider: KeyProvider = setup.provider) {
  const keys = subjectKeys(gatedClient, setup.tables.subjectKeys as string, setup.provider, { provider: gates.provider(provider) });
  return { keys, Customers: customerStream(gatedClient, setup.tables.events as string, keys) };
}

const gates = new Gates();
beforeAll(() => gates.hold(gatedClient));

test('a key read in flight when the subject is forgotten is not kept: from then on the process reads it redacted and refuses its data', async () => {
  await setup.customers().append({ customerId: 'kc-1' }, [registered('Ada')]);
  const { keys, Customers } = gatedProcess(gates);
  const reading = gates.run('read', () => Customers.read({ customerId: 'kc-1' }));
  // The key was read; its unwrap waits while the subject is forgotten.
  await gates.advance('read', 'unwrap');
  await keys.forget('kc-1');
  await gates.advance('read');
  const during = await within(reading, 10_000, 'the read');
  // Decoded after `forget` resolved: redacted too.
  expect(during[0]?.data).toEqual(redacted);
  expect((await Customers.read({ customerId: 'kc-1' }))[0]?.data).toEqual(redacted);
  await expect(Customers.append({ customerId: 'kc-1' }, [registered('Ada')])).rejects.toThrow(SubjectForgottenError);
  expect(await Customers.version({ customerId: 'kc-1' })).toBe(1);
});

test('a key made in flight when the subject is forgotten seals nothing: the append that made it and every later one are refused', async () => {
  const { keys, Customers } = gatedProcess(gates);
  const appending = gates.run('append', () => Customers.append({ customerId: 'kc-2' }, [registered('Grace')]));
  // The new key is stored; the answer comes back after the forget.
  await gates.advance('append', 'answer PutItemCommand');
  await keys.forget('kc-2');
  await gates.advance('append');
  await expect(within(appending, 10_000, 'the append')).rejects.toThrow(SubjectForgottenError);
  await expect(Customers.append({ customerId: 'kc-2' }, [registered('Grace')])).rejects.toThrow(SubjectForgottenError);
  expect(await Customers.version({ customerId: 'kc-2' })).toBe(0);
});

test('a key found missing once (its first append failed at the key provider) is read again: one another process made is found', async () => {
  const provider = gates.provider(setup.provider);
  const here = setup.keys({ provider });
  const Here = setup.customers(here);
  provider.faults.failNextNewKey = true;
  await expect(Here.append({ customerId: 'kc-3' }, [registered('Linus')])).rejects.toThrow(KeyProviderError);
  await setup.customers().append({ customerId: 'kc-3' }, [registered('Linus')]);

  expect((await Here.read({ customerId: 'kc-3' }))[0]?.data).toEqual({ name: 'Linus', email: 'linus@example.com', country: 'UK' });
  await Here.append({ customerId: 'kc-3' }, [registered('Linus')]);
  expect(await Here.version({ customerId: 'kc-3' })).toBe(2);
});

test('a read that joins a load which found the key missing before another process made it reads the key again', async () => {
  const { keys, Customers } = gatedProcess(gates);
  const early = gates.run('early', () => keys.load(['kc-4']));
  // Both reads of the early load found nothing; the answer of the strong one comes back late.
  await gates.advance('early', 'answer BatchGetItemCommand');
  await gates.next('early');
  await gates.advance('early', 'answer BatchGetItemCommand');
  await setup.customers().append({ customerId: 'kc-4' }, [registered('Barbara')]);
  // The event is read, and its key load joins the early one: it sends nothing of its own.
  const late = gates.run('late', () => Customers.read({ customerId: 'kc-4' }));
  await gates.advance('late');
  await gates.advance('early');
  await within(early, 10_000, 'the early load');
  await gates.advance('late');
  expect((await within(late, 10_000, 'the late read'))[0]?.data).toMatchObject({ name: 'Barbara' });
});

test("a key read answered after another process forgot the subject is held one lifetime from the read's start, not from its answer", async () => {
  await setup.customers().append({ customerId: 'kc-5' }, [registered('Edsger')]);
  let now = Date.UTC(2026, 0, 1);
  const keys = subjectKeys(gatedClient, setup.tables.subjectKeys as string, setup.provider, { now: () => now });
  const Customers = customerStream(gatedClient, setup.tables.events as string, keys);
  const loading = gates.run('load', () => keys.load(['kc-5']));
  // The key is read; its answer comes back after another process forgot the subject and a lifetime passed.
  await gates.advance('load', 'answer BatchGetItemCommand');
  await setup.keys().forget('kc-5');
  now += keys.cacheLifetimeMs;
  await gates.advance('load');
  await within(loading, 10_000, 'the load');
  // A lifetime has passed since the key was read: the next read reads the key table again and finds the marker.
  expect((await Customers.read({ customerId: 'kc-5' }))[0]?.data).toEqual(redacted);
  await expect(Customers.append({ customerId: 'kc-5' }, [registered('Edsger')])).rejects.toThrow(SubjectForgottenError);
});
