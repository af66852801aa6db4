/**
 * What goes wrong is a typed error, never garbage data and never a silent redaction: a changed or moved
 * ciphertext, a key the table lacks for a subject never forgotten, sealed data on a stream that declares
 * none, a subject id that is none. And what sealing must not change: large data still compresses, an
 * append of many events is one commit, an idempotent append repeats.
 */
import { DeleteItemCommand, GetItemCommand, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DecodeError, EventStream, PersonalDataTamperedError, SubjectKeyMissingError, ValidationError, isTransient } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { customerEventSchemas, customerProfileProjection } from '../support/customers';
import { customerSetupOfFile } from '../support/customer-setup';
import { plaintextIn, scanTable } from '../support/plaintext';
import { asLambdaRecord, readStreamRecords } from '../support/stream-records';

const setup = customerSetupOfFile('erasure-bad');
const { client, tables } = setup;
const customers = () => setup.customers();
const registered = (name: string) => ({ type: 'Registered', data: { name, email: `${name.toLowerCase()}@example.com`, country: 'UK' } }) as const;

const commitKey = (customerId: string, version: number) => ({
  pk: { S: `Customer#${customerId}` },
  sk: { S: `e#${String(version).padStart(10, '0')}` },
});

async function storedItem(customerId: string, version: number): Promise<Record<string, AttributeValue>> {
  const answer = await client.send(new GetItemCommand({ TableName: tables.events, Key: commitKey(customerId, version), ConsistentRead: true }));
  return answer.Item as Record<string, AttributeValue>;
}

async function rewrite(item: Record<string, AttributeValue>): Promise<void> {
  await client.send(new PutItemCommand({ TableName: tables.events, Item: item }));
}

/** The sealed `name` of a commit of one Registered event. */
const sealedName = (item: Record<string, AttributeValue>, subject: string) => item['pd']?.M?.[subject]?.M?.['name']?.B as Uint8Array;

test('a changed ciphertext is PersonalDataTamperedError, for every reader, never data', async () => {
  await customers().append({ customerId: 'b-1' }, [registered('Ada')]);
  const item = await storedItem('b-1', 1);
  const flipped = Buffer.from(sealedName(item, 'b-1'));
  flipped[flipped.length - 20] = (flipped[flipped.length - 20] as number) ^ 1;
  await rewrite({ ...item, pd: { M: { 'b-1': { M: { ...item['pd']?.M?.['b-1']?.M, name: { B: flipped } } } } } });
  const error: unknown = await customers()
    .read({ customerId: 'b-1' })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PersonalDataTamperedError);
  expect(error).toMatchObject({ code: 'erasure.tampered', subject: 'b-1' });
  expect((error as Error).message).toMatch(/field `name`/);
  expect(isTransient(error)).toBe(false);
  // Cut short, it fails the same way.
  await rewrite({ ...item, pd: { M: { 'b-1': { M: { ...item['pd']?.M?.['b-1']?.M, name: { B: flipped.subarray(0, 10) } } } } } });
  await expect(customers().read({ customerId: 'b-1' })).rejects.toThrow(PersonalDataTamperedError);
});

test('a ciphertext moved to another field, event or stream instance does not open there', async () => {
  await customers().append({ customerId: 'b-2' }, [registered('Grace')]);
  await customers().append({ customerId: 'b-2' }, [registered('Barbara')]);
  const first = await storedItem('b-2', 1);
  const second = await storedItem('b-2', 2);
  const fields = first['pd']?.M?.['b-2']?.M ?? {};
  // The email's ciphertext as the name.
  await rewrite({ ...first, pd: { M: { 'b-2': { M: { ...fields, name: fields['email'] as AttributeValue } } } } });
  await expect(customers().read({ customerId: 'b-2' }, { toVersion: 1 })).rejects.toThrow(PersonalDataTamperedError);
  await rewrite(first);
  // Another stream instance's sealed fields (same subject id, same field names) as this one's.
  await customers().append({ customerId: 'b-3' }, [{ type: 'Referred', data: { friendId: 'b-2', friendName: 'Grace' } }]);
  const third = await storedItem('b-3', 1);
  const moved = { M: { friendName: second['pd']?.M?.['b-2']?.M?.['name'] as AttributeValue } };
  await rewrite({ ...third, pd: { M: { 'b-2': moved } } });
  await expect(customers().read({ customerId: 'b-3' })).rejects.toThrow(PersonalDataTamperedError);
});

test('a key the table lacks, for a subject never forgotten, is SubjectKeyMissingError: never read as redacted', async () => {
  const Customers = customers();
  await Customers.append({ customerId: 'b-4' }, [registered('Edsger')]);
  await client.send(new DeleteItemCommand({ TableName: tables.subjectKeys, Key: { pk: { S: 'subject#b-4' }, sk: { S: 'key' } } }));
  const error: unknown = await customers()
    .read({ customerId: 'b-4' })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(SubjectKeyMissingError);
  expect(error).toMatchObject({ code: 'erasure.keyMissing', subject: 'b-4', table: tables.subjectKeys });

  // A batch reports the record (its shard holds) instead of folding a redacted event into the row.
  const records = (await readStreamRecords(tables.eventsStreamArn as string))
    .filter((record) => record.eventName === 'INSERT' && JSON.stringify(record.dynamodb?.Keys).includes('Customer#b-4'))
    .map(asLambdaRecord);
  const profiles = setup.profiles();
  const result = await processBatch(records, { projections: { profiles: customerProfileProjection(customers(), profiles) }, logger: false });
  expect(result.decodeFailures.map((failure) => (failure.error as Error).name)).toEqual(['SubjectKeyMissingError']);
  expect(result.response.batchItemFailures).toEqual([{ itemIdentifier: records[0]?.dynamodb?.SequenceNumber }]);
  expect(await profiles.get({ customerId: 'b-4' }, { consistent: true })).toBeUndefined();
});

test('sealed data on a stream that declares no personal data is a DecodeError saying what to declare', async () => {
  await customers().append({ customerId: 'b-5' }, [registered('Alan')]);
  const plain = new EventStream({ client, table: tables.events as string, name: 'Customer', streamId: ['customerId'], events: customerEventSchemas });
  await expect(plain.read({ customerId: 'b-5' })).rejects.toThrow(DecodeError);
  await expect(plain.read({ customerId: 'b-5' })).rejects.toThrow(/declares no `personalData`/);
});

test('a subject id that is none is a ValidationError naming the event and the field; nothing is written', async () => {
  const Customers = customers();
  const error: unknown = await Customers.append({ customerId: 'b-6' }, [
    registered('Ada'),
    { type: 'Referred', data: { friendId: '', friendName: 'Nobody' } },
  ]).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).message).toMatch(/Event 1 \(Referred\).*`friendId`/);
  expect((error as ValidationError).issues).toEqual([{ path: [1, 'data', 'friendId'], message: 'not a subject id' }]);
  expect(await Customers.version({ customerId: 'b-6' })).toBe(0);
});

test('large data still compresses, many events are one commit, an idempotent append repeats: none in the clear', async () => {
  const Customers = setup.customers(setup.keys(), { compression: { thresholdBytes: 64 } });
  const long = 'Margaret Hamilton '.repeat(20);
  const events = [
    { type: 'Registered', data: { name: long, email: 'margaret@example.com', country: 'US '.repeat(40) } },
    ...Array.from({ length: 5 }, (_unused, n) => ({ type: 'Referred', data: { friendId: `b-f${n}`, friendName: `Friend Number ${n}` } }) as const),
  ] as const;
  const first = await Customers.append({ customerId: 'b-7' }, events, { idempotencyKey: 'once' });
  const again = await customers().append({ customerId: 'b-7' }, events, { idempotencyKey: 'once' });
  expect(again).toEqual({ version: first.version, events: first.events });
  expect(first.events.map((event) => event.data)).toEqual(events.map((event) => event.data));
  const commit = await storedItem('b-7', 1);
  expect(commit['count']).toEqual({ N: '6' });
  expect(commit['events']?.L?.[0]?.M?.['enc']).toEqual({ S: 'gzip' });
  const stored = (await scanTable(client, tables.events as string)).filter(([label]) => label.includes('Customer#b-7'));
  expect(plaintextIn(stored, ['Margaret Hamilton', 'margaret@example.com', 'Friend Number'])).toEqual([]);
  expect((await customers().read({ customerId: 'b-7' })).map((event) => event.data)).toEqual(events.map((event) => event.data));
});
