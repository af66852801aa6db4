/**
 * What goes wrong is a typed error, never garbage data and never a silent redaction: a changed or moved
 * ciphertext (to another event too, however alike; values sealed before events were bound stay readable),
 * a key the table lacks for a subject never forgotten, sealed data on a stream that declares none, a
 * subject id that is none. And what sealing must not change: large data still compresses, an append of
 * many events is one commit, an idempotent append repeats, an append that loses a race reads back.
 */
import { DeleteItemCommand, GetItemCommand, PutItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DecodeError, EventStream, PersonalDataTamperedError, SubjectKeyMissingError, ValidationError, isTransient } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { dataKeyOf, seal } from '../../lib/personal/cipher';
import { customerEventSchemas, customerProfileProjection, customerStream } from '../support/customers';
import { customerSetupOfFile } from '../support/customer-setup';
import { plaintextIn, scanTable } from '../support/plaintext';
import { testClient } from '../support/dynamo';
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

test('a sealed value copied over another event’s (same instance, type, subject and field) is PersonalDataTamperedError', async () => {
  await customers().append({ customerId: 'b-8' }, [registered('Grace')]);
  await customers().append({ customerId: 'b-8' }, [registered('Barbara')]);
  const first = await storedItem('b-8', 1);
  await client.send(
    new UpdateItemCommand({
      TableName: tables.events,
      Key: commitKey('b-8', 2),
      UpdateExpression: 'SET pd.#subject.email = :copied',
      ExpressionAttributeNames: { '#subject': 'b-8' },
      ExpressionAttributeValues: { ':copied': first['pd']?.M?.['b-8']?.M?.['email'] as AttributeValue },
    }),
  );
  const error: unknown = await customers()
    .read({ customerId: 'b-8' })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PersonalDataTamperedError);
  expect(error).toMatchObject({ code: 'erasure.tampered', subject: 'b-8' });
  expect((error as Error).message).toMatch(/e#0000000002.*field `email`/);
  // The event it was copied from still reads.
  expect((await customers().read({ customerId: 'b-8' }, { toVersion: 1 }))[0]?.data).toMatchObject({ email: 'grace@example.com' });
});

test('an append that loses a race seals its fields again for the versions it lands at', async () => {
  const racing = testClient();
  try {
    let raced = false;
    racing.middlewareStack.add(
      (next, context) => async (args) => {
        if (!raced && context.commandName === 'PutItemCommand') {
          raced = true;
          // Another writer takes version 1 between this append's head read and its Put.
          await customers().append({ customerId: 'b-9' }, [registered('Grace')]);
        }
        return next(args);
      },
      { step: 'initialize', name: 'take-version-1' },
    );
    const appended = await customerStream(racing, tables.events as string, setup.keys()).append({ customerId: 'b-9' }, [registered('Ada')]);
    expect(raced).toBe(true);
    expect(appended.events.map((event) => event.version)).toEqual([2]);
    expect((await customers().read({ customerId: 'b-9' })).map((event) => event.data)).toEqual([registered('Grace').data, registered('Ada').data]);
  } finally {
    racing.destroy();
  }
});

test('a value sealed before fields were bound to their event’s version still opens, in any event of its instance, type, subject and field', async () => {
  await customers().append({ customerId: 'b-10' }, [registered('Alan')]);
  await customers().append({ customerId: 'b-10' }, [registered('Alonzo')]);
  const keyItem = await client.send(
    new GetItemCommand({ TableName: tables.subjectKeys, Key: { pk: { S: 'subject#b-10' }, sk: { S: 'key' } }, ConsistentRead: true }),
  );
  const key = dataKeyOf(await setup.provider.unwrap('b-10', keyItem.Item?.['wrappedKey']?.B as Uint8Array));
  // Laid out as appends sealed it then: format 1, bound to the place without the event's version.
  const unversioned = seal(
    key,
    Buffer.from(JSON.stringify('alan@old.example')),
    ['dynafold:event', 'Customer#b-10', 'Registered', 'b-10', 'email'].join('\n'),
  );
  expect(unversioned[0]).toBe(1);
  for (const version of [1, 2]) {
    await client.send(
      new UpdateItemCommand({
        TableName: tables.events,
        Key: commitKey('b-10', version),
        UpdateExpression: 'SET pd.#subject.email = :old',
        ExpressionAttributeNames: { '#subject': 'b-10' },
        ExpressionAttributeValues: { ':old': { B: unversioned } },
      }),
    );
  }
  expect((await customers().read({ customerId: 'b-10' })).map((event) => event.data)).toEqual([
    { ...registered('Alan').data, email: 'alan@old.example' },
    { ...registered('Alonzo').data, email: 'alan@old.example' },
  ]);
});

test('a sealed snapshot’s state beside another version than it was saved with is PersonalDataTamperedError', async () => {
  const Customers = customers();
  await Customers.append({ customerId: 'b-11' }, [registered('Ada'), { type: 'OrderPlaced', data: { orderId: 'o-1', total: 1 } }]);
  expect(await Customers.saveSnapshot({ customerId: 'b-11' }, { version: 2, state: { name: 'Ada' } })).toBe(true);
  const key = { pk: { S: 'Customer#b-11' }, sk: { S: 'e$snapshot#default' } };
  expect((await customers().loadSnapshot({ customerId: 'b-11' }))?.state).toEqual({ name: 'Ada' });
  // The state saved at version 2 passed off as standing at version 1: a load would fold event 2 onto it again.
  await client.send(
    new UpdateItemCommand({
      TableName: tables.events,
      Key: key,
      UpdateExpression: 'SET version = :one',
      ExpressionAttributeValues: { ':one': { N: '1' } },
    }),
  );
  await expect(customers().loadSnapshot({ customerId: 'b-11' })).rejects.toThrow(PersonalDataTamperedError);
  await expect(customers().load({ customerId: 'b-11' }, { initial: {}, evolve: (state) => state }, { snapshot: { every: 2 } })).rejects.toThrow(
    PersonalDataTamperedError,
  );
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
