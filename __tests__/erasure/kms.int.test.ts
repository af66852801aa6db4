import { CreateTableCommand, DeleteItemCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ConfigurationError, KeyProviderError, eventsTableDefinition, isTransient } from 'dynafold';
import { SubjectKeys, subjectKeysTableDefinition } from 'dynafold/erasure';
import { KmsKeyProvider } from 'dynafold/kms';
import { customerStream } from '../support/customers';
import { createTestTable, testClient, uniqueName } from '../support/dynamo';
import { kmsStandIn } from '../support/kms-stand-in';

const client = testClient();
const kms = kmsStandIn();
let events: string;
let keyTable: string;

beforeAll(async () => {
  ({ name: events } = await createTestTable(client, eventsTableDefinition, 'kms'));
  keyTable = uniqueName('kms-keys');
  await client.send(new CreateTableCommand(subjectKeysTableDefinition(keyTable)));
});
afterAll(() => {
  client.destroy();
  kms.client.destroy();
});

const keysWith = (cacheLifetimeMs?: number) =>
  new SubjectKeys({
    client,
    table: keyTable,
    provider: new KmsKeyProvider({ client: kms.client, keyId: 'alias/dynafold-subjects' }),
    ...(cacheLifetimeMs === undefined ? {} : { cacheLifetimeMs }),
  });

test('KMS makes each subject’s key once and unwraps it once per process and lifetime; the table holds only what KMS wrapped', async () => {
  const Customers = customerStream(client, events, keysWith());
  for (const customerId of ['k-1', 'k-2']) {
    await Customers.append({ customerId }, [
      { type: 'Registered', data: { name: `Name ${customerId}`, email: `${customerId}@example.com`, country: 'NL' } },
    ]);
  }
  expect(kms.calls.get('GenerateDataKey')).toBe(2);
  const stored = await client.send(new GetItemCommand({ TableName: keyTable, Key: { pk: { S: 'subject#k-1' }, sk: { S: 'key' } } }));
  expect(stored.Item?.['provider']).toEqual({ S: 'alias/dynafold-subjects' });
  expect(stored.Item?.['wrappedKey']?.B?.length).toBeGreaterThan(32);

  // Another process: one Decrypt per subject, whatever it reads of them.
  const reader = customerStream(client, events, keysWith());
  const before = kms.calls.get('Decrypt') ?? 0;
  for (let round = 0; round < 3; round++) {
    expect((await reader.read({ customerId: 'k-1' }))[0]?.data).toEqual({ name: 'Name k-1', email: 'k-1@example.com', country: 'NL' });
    expect((await reader.read({ customerId: 'k-2' }))[0]?.data).toMatchObject({ name: 'Name k-2' });
  }
  expect((kms.calls.get('Decrypt') ?? 0) - before).toBe(2);
});

test('a throttled KMS is a transient KeyProviderError, and the read succeeds once KMS answers', async () => {
  const Customers = customerStream(client, events, keysWith());
  await Customers.append({ customerId: 'k-3' }, [{ type: 'Registered', data: { name: 'Three', email: 'three@example.com', country: 'NL' } }]);
  const reader = customerStream(client, events, keysWith());
  kms.throttleNext(1);
  const error: unknown = await reader.read({ customerId: 'k-3' }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(KeyProviderError);
  expect(isTransient(error)).toBe(true);
  expect((await reader.read({ customerId: 'k-3' }))[0]?.data).toMatchObject({ name: 'Three' });
});

test('a wrapped key moved to another subject does not unwrap: KMS binds it to its subject', async () => {
  const Customers = customerStream(client, events, keysWith());
  await Customers.append({ customerId: 'k-4' }, [{ type: 'Registered', data: { name: 'Four', email: 'four@example.com', country: 'NL' } }]);
  await Customers.append({ customerId: 'k-5' }, [{ type: 'Registered', data: { name: 'Five', email: 'five@example.com', country: 'NL' } }]);
  const four = await client.send(new GetItemCommand({ TableName: keyTable, Key: { pk: { S: 'subject#k-4' }, sk: { S: 'key' } } }));
  await client.send(new DeleteItemCommand({ TableName: keyTable, Key: { pk: { S: 'subject#k-5' }, sk: { S: 'key' } } }));
  await client.send(new PutItemCommand({ TableName: keyTable, Item: { ...four.Item, pk: { S: 'subject#k-5' } } }));
  const error: unknown = await customerStream(client, events, keysWith())
    .read({ customerId: 'k-5' })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(KeyProviderError);
  expect(isTransient(error)).toBe(false);
  expect((error as Error).message).toMatch(/InvalidCiphertextException/);
});

test('its options are checked at construction', () => {
  expect(() => new KmsKeyProvider({ client: kms.client, keyId: '' })).toThrow(ConfigurationError);
  expect(() => new KmsKeyProvider({ client: {} as never, keyId: 'alias/x' })).toThrow(/`client`/);
});
