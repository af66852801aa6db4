/**
 * Declaring personal data: the types say which fields a type has (a typo does not compile), and at
 * construction a type, field, subject or replacement the stream can't honour is a ConfigurationError
 * naming it. Nothing here sends a request.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { ConfigurationError, EventStream, olderVersion } from 'dynafold';
import { LocalKeyProvider, SubjectKeys, type PersonalDataOptions } from 'dynafold/erasure';
import { customerEventSchemas } from '../support/customers';

const client = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
afterAll(() => client.destroy());
const keys = new SubjectKeys({ client, table: 'subject-keys', provider: new LocalKeyProvider({ key: Buffer.alloc(32, 7) }) });

function streamWith(personalData: unknown, events: Record<string, z.ZodType> = customerEventSchemas, versions?: unknown) {
  return () =>
    new EventStream({
      client,
      table: 'events',
      name: 'Customer',
      streamId: ['customerId'],
      events,
      ...(versions === undefined ? {} : { versions: versions as never }),
      personalData: personalData as never,
    });
}

test('a valid declaration constructs: subjects from the stream id and from the data, several subjects per type', () => {
  expect(
    streamWith({
      keys,
      events: {
        Registered: { subject: { streamId: 'customerId' }, fields: { name: '[erased]', email: '' } },
        Referred: [
          { subject: { data: 'friendId' }, fields: { friendName: '?' } },
          { subject: { streamId: 'customerId' }, fields: { note: '' } },
        ],
      },
    }),
  ).not.toThrow();
});

test.each([
  [
    'keys that are no SubjectKeys',
    { keys: {}, events: { Registered: { subject: { streamId: 'customerId' }, fields: { name: '' } } } },
    /`keys` to be a SubjectKeys/,
  ],
  ['no event type', { keys, events: {} }, /at least one event type/],
  [
    'an unknown event type',
    { keys, events: { Registred: { subject: { streamId: 'customerId' }, fields: { name: '' } } } },
    /`events.Registred` names no event type/,
  ],
  [
    'an unknown field',
    { keys, events: { Registered: { subject: { streamId: 'customerId' }, fields: { emial: '' } } } },
    /personal field `emial` is not in the type's schema/,
  ],
  ['no field', { keys, events: { Registered: { subject: { streamId: 'customerId' }, fields: {} } } }, /at least one personal field/],
  [
    'a replacement the schema refuses',
    { keys, events: { Registered: { subject: { streamId: 'customerId' }, fields: { name: null } } } },
    /refuses its replacement null/,
  ],
  [
    'a subject from no stream id field',
    { keys, events: { Registered: { subject: { streamId: 'id' }, fields: { name: '' } } } },
    /`subject.streamId` names `id`/,
  ],
  [
    'a subject from no data field',
    { keys, events: { Referred: { subject: { data: 'friend' }, fields: { friendName: '' } } } },
    /`subject.data` names `friend`/,
  ],
  [
    'a subject that is also personal',
    { keys, events: { Referred: { subject: { data: 'friendId' }, fields: { friendId: '', friendName: '' } } } },
    /subject field `friendId` is also declared personal/,
  ],
  ['no subject', { keys, events: { Registered: { fields: { name: '' } } } }, /expected `subject`/],
  [
    'a field of two subjects',
    {
      keys,
      events: {
        Referred: [
          { subject: { data: 'friendId' }, fields: { friendName: '' } },
          { subject: { streamId: 'customerId' }, fields: { friendName: '' } },
        ],
      },
    },
    /`friendName` is declared for two subjects/,
  ],
  [
    'an older version the type does not have',
    {
      keys,
      events: { Registered: { subject: { streamId: 'customerId' }, fields: { name: '' } } },
      older: { Registered: { 1: { subject: { streamId: 'customerId' }, fields: { name: '' } } } },
    },
    /`older.Registered.1` names no older version/,
  ],
])('%s is a ConfigurationError', (_name, personalData, message) => {
  expect(streamWith(personalData)).toThrow(ConfigurationError);
  expect(streamWith(personalData)).toThrow(message);
});

test('personal fields are fields of an object schema', () => {
  const events = { Noted: z.string() };
  expect(streamWith({ keys, events: { Noted: { subject: { streamId: 'customerId' }, fields: { text: '' } } } }, events)).toThrow(
    /z.object\(\) schema/,
  );
});

test('an older version’s fields are checked against that version’s schema', () => {
  const events = { Registered: z.object({ fullName: z.string(), email: z.string() }) };
  const versions = { Registered: { older: [olderVersion(1, z.object({ name: z.string() }), (v1) => ({ fullName: v1.name, email: '' }))] } };
  const today = { Registered: { subject: { streamId: 'customerId' }, fields: { fullName: '[erased]', email: '' } } };
  expect(
    streamWith(
      { keys, events: today, older: { Registered: { 1: { subject: { streamId: 'customerId' }, fields: { name: '[erased]' } } } } },
      events,
      versions,
    ),
  ).not.toThrow();
  expect(
    streamWith(
      { keys, events: today, older: { Registered: { 1: { subject: { streamId: 'customerId' }, fields: { fullName: '' } } } } },
      events,
      versions,
    ),
  ).toThrow(/`fullName` is not in the type's schema \(name\)/);
});

test('the types refuse what the stream does not have (checked by tsc)', () => {
  type Options = PersonalDataOptions<typeof customerEventSchemas, 'customerId'>;
  const valid: Options = { keys, events: { Referred: { subject: { data: 'friendId' }, fields: { friendName: '[erased]' } } } };
  // @ts-expect-error a type the stream does not have
  const badType: Options = { keys, events: { Registred: { subject: { streamId: 'customerId' }, fields: {} } } };
  // @ts-expect-error a field its type does not have
  const badField: Options = { keys, events: { Registered: { subject: { streamId: 'customerId' }, fields: { emial: '' } } } };
  // @ts-expect-error a replacement its field's type refuses
  const badValue: Options = { keys, events: { Registered: { subject: { streamId: 'customerId' }, fields: { name: null } } } };
  // @ts-expect-error a subject from a field that does not hold a string
  const badSubject: Options = { keys, events: { OrderPlaced: { subject: { data: 'total' }, fields: { orderId: '' } } } };
  // @ts-expect-error a subject from no field of the stream id
  const badId: Options = { keys, events: { Registered: { subject: { streamId: 'orderId' }, fields: { name: '' } } } };
  expect([valid, badType, badField, badValue, badSubject, badId]).toHaveLength(6);
});

test('SubjectKeys and LocalKeyProvider check their options at construction', () => {
  const provider = new LocalKeyProvider({ key: Buffer.alloc(32, 1) });
  expect(() => new LocalKeyProvider({ key: Buffer.alloc(16) })).toThrow(/`key` to be 32 bytes/);
  expect(() => new SubjectKeys({ client, table: 'x', provider })).toThrow(/`table`/);
  expect(() => new SubjectKeys({ client, table: 'keys', provider: {} as never })).toThrow(/`provider` to be a KeyProvider/);
  expect(() => new SubjectKeys({ client, table: 'keys', provider, cacheLifetimeMs: -1 })).toThrow(/`cacheLifetimeMs`/);
  expect(() => new SubjectKeys({ client, table: 'keys', provider, cacheMaxEntries: 0 })).toThrow(/`cacheMaxEntries`/);
  expect(() => new SubjectKeys({ client, table: 'keys', provider, unwrapConcurrency: 1.5 })).toThrow(/`unwrapConcurrency`/);
});
