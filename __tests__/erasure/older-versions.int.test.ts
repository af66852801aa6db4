/**
 * A forgotten subject's fields of an event stored at an older version of its type read as a replacement
 * that version's schema accepts, then upcast: version 1 of Registered checked `email` with z.email(),
 * today's with z.string() and the replacement '[erased]', which version 1 refuses. The stream says so at
 * construction; with a replacement of version 1's own, every reader reads the redacted history, and no
 * row fails or parks.
 */
import { z } from 'zod';
import { ConfigurationError, EventStream, olderVersion } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import {
  Erased,
  customerEventSchemas,
  customerProfileProjection,
  evolveCustomer,
  noCustomer,
  profileOf,
  type CustomerEvent,
  type CustomerStreamOptions,
} from '../support/customers';
import { customerSetupOfFile } from '../support/customer-setup';
import { asLambdaRecord, readStreamRecords } from '../support/stream-records';

const setup = customerSetupOfFile('erasure-older');
const { client, tables } = setup;

const RegisteredV1 = z.object({ name: z.string(), email: z.email(), country: z.string() });
const versions: CustomerStreamOptions['versions'] = { Registered: { older: [olderVersion(1, RegisteredV1, (v1) => v1)] } };
/** Version 1's own replacement for the one field whose schema there refuses today's. */
const older: CustomerStreamOptions['older'] = {
  Registered: { 1: { subject: { streamId: 'customerId' }, fields: { email: 'erased@example.invalid' } } },
};

/** The customer stream as it was when Registered was at version 1. */
function customersAtVersion1(keys: ReturnType<typeof setup.keys>) {
  return new EventStream({
    client,
    table: tables.events as string,
    name: 'Customer',
    streamId: ['customerId'],
    events: { ...customerEventSchemas, Registered: RegisteredV1 },
    personalData: {
      keys,
      events: {
        Registered: { subject: { streamId: 'customerId' }, fields: { name: Erased.name, email: 'erased@example.invalid' } },
        AddressChanged: { subject: { streamId: 'customerId' }, fields: { address: Erased.address } },
      },
    },
  });
}

test('today’s replacement that version 1’s schema refuses is a ConfigurationError at construction, naming the version to declare', () => {
  const construct = () => setup.customers(setup.keys(), { versions });
  expect(construct).toThrow(ConfigurationError);
  expect(construct).toThrow(/version 1 of Registered has the field `email` too.*refuses today's replacement "\[erased\]".*`older.Registered.1`/);
});

test('after a forget, events stored at version 1 read redacted everywhere: read, load, execute, a gap read, a rebuild; no row parks', async () => {
  const keys = setup.keys();
  const customerId = 'o-1';
  await customersAtVersion1(keys).append({ customerId }, [
    { type: 'Registered', data: { name: 'Ada', email: 'ada@example.com', country: 'UK' } },
    { type: 'AddressChanged', data: { address: { street: 'Engine Row', city: 'London' } } },
  ]);
  const Customers = setup.customers(keys, { versions, older });
  await Customers.append({ customerId }, [{ type: 'Registered', data: { name: 'Ada L', email: 'ada.l@example.com', country: 'UK' } }]);
  await keys.forget(customerId);

  const expected = [
    { name: Erased.name, email: 'erased@example.invalid', country: 'UK' },
    { address: Erased.address },
    { name: Erased.name, email: Erased.email, country: 'UK' },
  ];
  expect((await Customers.read({ customerId })).map((event) => event.data)).toEqual(expected);
  const fold = { initial: noCustomer, evolve: evolveCustomer };
  expect((await Customers.load({ customerId }, fold)).state).toMatchObject({ name: Erased.name, email: Erased.email, city: null });
  const executed = await Customers.execute(
    { customerId },
    { ...fold, decide: (state) => [{ type: 'OrderPlaced', data: { orderId: state.email ?? '', total: 1 } }] },
  );
  expect(executed.events.map((event) => event.data)).toEqual([{ orderId: Erased.email, total: 1 }]);

  // A batch of the last record only: the three before it are read from the table (a gap read).
  const profiles = setup.profiles();
  const projection = customerProfileProjection(Customers, profiles);
  const records = (await readStreamRecords(tables.eventsStreamArn as string))
    .filter((record) => record.eventName === 'INSERT' && JSON.stringify(record.dynamodb?.Keys).includes(`Customer#${customerId}`))
    .map(asLambdaRecord);
  const result = await processBatch(records.slice(-1), { projections: { profiles: projection }, logger: false });
  expect(result.response.batchItemFailures).toEqual([]);
  expect(result.outcomes.profiles.map((outcome) => outcome.status)).toEqual(['applied']);
  const history = (await Customers.read({ customerId })) as CustomerEvent[];
  expect(history.map((event) => event.data)).toEqual([...expected, { orderId: Erased.email, total: 1 }]);
  expect(await profiles.get({ customerId }, { consistent: true })).toMatchObject(profileOf(customerId, history));

  // The rebuild the guide prescribes after a forget.
  await projection.rebuild({ customerId });
  expect(await profiles.get({ customerId }, { consistent: true })).toMatchObject(profileOf(customerId, history));
});
