/**
 * A local key provider across processes: a `keyFile` gives every process started in one folder the same
 * key-encryption key, made once; a process with another key is told so (not sent to KMS permissions).
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, KeyProviderError } from 'dynafold';
import { LocalKeyProvider, SubjectKeys } from 'dynafold/erasure';
import { createCustomerTables } from '../support/customer-setup';
import { customerStream } from '../support/customers';
import { testClient } from '../support/dynamo';

const client = testClient();
let tables: { events: string; keys: string };
afterAll(() => client.destroy());
beforeAll(async () => {
  const made = await createCustomerTables(client, 'local-keys');
  tables = { events: made.events as string, keys: made.subjectKeys as string };
});

/** What a process of its own holds: a provider, subject keys with an empty cache, the customer stream. */
const processWith = (provider: LocalKeyProvider) => customerStream(client, tables.events, new SubjectKeys({ client, table: tables.keys, provider }));

const registered = (name: string) => [{ type: 'Registered' as const, data: { name, email: `${name}@example.com`, country: 'NL' } }];

test('a keyFile is made once, readable by its owner only, and every process that names it reads what the others sealed', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'dynafold-keys-')), '.subject-key');
  const first = new LocalKeyProvider({ keyFile: file });
  const second = new LocalKeyProvider({ keyFile: file });
  expect(readFileSync(file)).toHaveLength(32);
  expect(statSync(file).mode & 0o777).toBe(0o600);

  await processWith(first).append({ customerId: 'f-1' }, registered('Ada'));
  expect((await processWith(second).read({ customerId: 'f-1' }))[0]?.data).toMatchObject({ name: 'Ada' });
});

test('a process with another local key is told that every process needs the same key, not to check KMS permissions', async () => {
  await processWith(new LocalKeyProvider({ key: randomBytes(32) })).append({ customerId: 'm-1' }, registered('Grace'));
  const error: unknown = await processWith(new LocalKeyProvider({ key: randomBytes(32) }))
    .read({ customerId: 'm-1' })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(KeyProviderError);
  const { message } = error as KeyProviderError;
  expect(message).toMatch(/wrapped with another key than this LocalKeyProvider's \(local\)/);
  expect(message).toMatch(/every process that reads the key table must use the same key.*`keyFile`/);
  expect(message).not.toMatch(/kms/i);
});

test('a key another provider wrapped names both providers', async () => {
  await processWith(new LocalKeyProvider({ key: randomBytes(32), id: 'dev-laptop' })).append({ customerId: 'p-1' }, registered('Edsger'));
  const error: unknown = await processWith(new LocalKeyProvider({ key: randomBytes(32), id: 'ci' }))
    .read({ customerId: 'p-1' })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(KeyProviderError);
  expect((error as Error).message).toMatch(/wrapped by key provider dev-laptop, and this one is ci: read the key table \S+ with the provider/);
});

test('a key and a key file at once, or a key file of another length, are ConfigurationErrors', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'dynafold-keys-')), 'short.key');
  writeFileSync(file, randomBytes(16));
  expect(() => new LocalKeyProvider({ keyFile: file })).toThrow(ConfigurationError);
  expect(() => new LocalKeyProvider({ keyFile: file })).toThrow(/holds 16 bytes, not 32: delete it/);
  expect(() => new LocalKeyProvider({ key: randomBytes(32), keyFile: file } as never)).toThrow(/give `key` or `keyFile`, not both/);
});
