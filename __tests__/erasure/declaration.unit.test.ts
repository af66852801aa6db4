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

describe('a subject read from the data must be a field that holds a string', () => {
  const noted = (ownerId: z.ZodType) => ({ Noted: z.object({ ownerId, text: z.string() }) });
  const declared = { keys, events: { Noted: { subject: { data: 'ownerId' }, fields: { text: '[erased]' } } } };

  test.each([
    ['a number', z.number(), /holds number, not a string/],
    ['an optional number', z.number().optional(), /holds number/],
    ['a string or a number', z.union([z.string(), z.number()]), /holds number/],
    ['a number parsed from a string', z.string().pipe(z.coerce.number()), /holds number/],
    ['a boolean decoded from a string', z.stringbool(), /holds boolean/],
    ['an object', z.object({ id: z.string() }), /holds object/],
    ['a numeric literal', z.literal(7), /holds number/],
    ['a numeric enum', z.enum({ One: 1, Two: 2 }), /holds number/],
    ['only null', z.null(), /holds only null or undefined/],
  ])('%s is a ConfigurationError naming the stream, the type and the field', (_name, schema, holds) => {
    const construct = streamWith(declared, noted(schema));
    expect(construct).toThrow(ConfigurationError);
    expect(construct).toThrow(/^Stream Customer: `personalData`, `events.Noted`: `subject.data` names `ownerId`/);
    expect(construct).toThrow(holds);
    expect(construct).toThrow(/z.string\(\) or one of its formats/);
  });

  test.each([
    ['a string', z.string()],
    ['a format', z.uuid()],
    ['an optional, nullable string with a default', z.string().nullable().optional().default('x')],
    ['a refined string', z.string().refine((id) => id.startsWith('c-'))],
    ['a branded string', z.string().brand<'CustomerId'>()],
    ['a string enum', z.enum(['a', 'b'])],
    ['a string literal', z.literal('c-1')],
    ['a union of strings and null', z.union([z.email(), z.literal('none'), z.null()])],
    ['a template literal', z.templateLiteral(['c-', z.number()])],
    ['a lazy string', z.lazy(() => z.string())],
    ['a string piped into another', z.string().pipe(z.string().min(2))],
    ['a transform (its values are checked as they come)', z.string().transform((id) => id.trim())],
  ])('%s is accepted', (_name, schema) => {
    expect(streamWith(declared, noted(schema))).not.toThrow();
  });
});

describe('a replacement must read at every version of the type that has the field', () => {
  const RegisteredV1 = z.object({ name: z.string(), email: z.email() });
  const events = { Registered: z.object({ name: z.string(), email: z.string() }) };
  const versions = { Registered: { older: [olderVersion(1, RegisteredV1, (v1) => v1)] } };
  const today = { Registered: { subject: { streamId: 'customerId' }, fields: { name: '[erased]', email: '[erased]' } } };

  test('an older version whose schema refuses today’s replacement is a ConfigurationError saying what to declare', () => {
    const construct = streamWith({ keys, events: today }, events, versions);
    expect(construct).toThrow(ConfigurationError);
    expect(construct).toThrow(
      /`events.Registered`: version 1 of Registered has the field `email` too, and its schema there refuses today's replacement "\[erased\]".*under `older.Registered.1`/,
    );
  });

  test('a replacement of its own under `older` for that version (only for the field it refuses) constructs', () => {
    const older = { Registered: { 1: { subject: { streamId: 'customerId' }, fields: { email: 'erased@example.invalid' } } } };
    expect(streamWith({ keys, events: today, older }, events, versions)).not.toThrow();
    const refused = { Registered: { 1: { subject: { streamId: 'customerId' }, fields: { email: '[gone]' } } } };
    expect(streamWith({ keys, events: today, older: refused }, events, versions)).toThrow(
      /`older.Registered.1`: the field `email`'s schema refuses its replacement "\[gone\]"/,
    );
  });

  test('a version without the field, or whose schema is no object, needs nothing', () => {
    const renamed = { Registered: { older: [olderVersion(1, z.object({ mail: z.email() }), (v1) => ({ name: '', email: v1.mail }))] } };
    expect(streamWith({ keys, events: today }, events, renamed)).not.toThrow();
    const text = { Registered: { older: [olderVersion(1, z.string(), (v1) => ({ name: v1, email: '' }))] } };
    expect(streamWith({ keys, events: today }, events, text)).not.toThrow();
  });
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
