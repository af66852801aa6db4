/**
 * Every path that reads events reads personal fields in the clear while their subjects have keys, and
 * nothing written holds them so: appends, reads, loads and snapshots, commands (a lost race's winner too),
 * the decoder, a batch of stream records (its gap reads too), catch-up, rebuild, backfill and the test kit.
 */
import { SubjectKeyNotLoadedError, decoder } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { projectionSpec } from 'dynafold/testing';
import {
  customerProfileProjection,
  customerProfiles,
  customerStream,
  evolveCustomer,
  noCustomer,
  profileOf,
  type CustomerEvent,
} from '../support/customers';
import { customerSetupOfFile } from '../support/customer-setup';
import { plaintextIn, recordValues, scanTable } from '../support/plaintext';
import { asLambdaRecord, readStreamRecords } from '../support/stream-records';
import { orderStream } from '../support/orders';

const setup = customerSetupOfFile('readers');
const { client, tables } = setup;
const customers = () => setup.customers();

/** What the tests append: personal data (the secrets) of ada (c-1) and of her friend grace (c-9). */
const secrets = ['Ada Lovelace', 'ada@example.com', 'Grace Hopper', 'Analytical Street'];
const registered = { type: 'Registered', data: { name: 'Ada Lovelace', email: 'ada@example.com', country: 'UK' } } as const;
const moved = { type: 'AddressChanged', data: { address: { street: 'Analytical Street', city: 'London' } } } as const;
const referred = { type: 'Referred', data: { friendId: 'c-9', friendName: 'Grace Hopper' } } as const;
const ordered = (orderId: string) => ({ type: 'OrderPlaced', data: { orderId, total: 10 } }) as const;

test('an append returns what a read returns, and writes no personal field in the clear: not in the item, not in its stream record', async () => {
  const Customers = customers();
  const appended = await Customers.append({ customerId: 'c-1' }, [registered, moved]);
  const second = await Customers.append({ customerId: 'c-1' }, [referred]);
  expect([...appended.events, ...second.events].map((event) => event.data)).toEqual([registered.data, moved.data, referred.data]);
  expect(await Customers.read({ customerId: 'c-1' })).toEqual([...appended.events, ...second.events]);
  const records = (await readStreamRecords(tables.eventsStreamArn as string)).filter((record) => record.eventName === 'INSERT');
  expect(records.length).toBeGreaterThan(0);
  expect(plaintextIn([...(await scanTable(client, tables.events as string)), ...recordValues(records)], secrets)).toEqual([]);
  // The subject ids stay readable (they are the keys to the keys); the rest of the data too.
  const [commit] = await scanTable(client, tables.events as string);
  expect(JSON.stringify(commit)).toContain('"UK"');
});

test('reads, paged reads from inside a commit, loads and snapshots open them; a snapshot is stored sealed', async () => {
  const Customers = customers();
  for (let n = 0; n < 6; n++) await Customers.append({ customerId: 'c-2' }, n === 0 ? [registered, ordered('o-0')] : [ordered(`o-${n}`)]);
  expect((await Customers.read({ customerId: 'c-2' }, { fromVersion: 2, toVersion: 2 }))[0]?.type).toBe('OrderPlaced');
  expect((await Customers.readFrom({ customerId: 'c-2' }, 0, { toVersion: 1 }))[0]?.data).toEqual(registered.data);
  const fold = { initial: noCustomer, evolve: evolveCustomer };
  const loaded = await Customers.load({ customerId: 'c-2' }, fold, { snapshot: { every: 3 } });
  expect(loaded.state).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com', orders: 6 });
  const snapshot = (await scanTable(client, tables.events as string)).find(([label]) => label.includes('c-2') && label.includes('snapshot'));
  expect(snapshot).toBeDefined();
  expect(plaintextIn([snapshot as readonly [string, unknown]], secrets)).toEqual([]);
  // A new reader (its own cache) loads from the sealed snapshot.
  const again = await customers().load({ customerId: 'c-2' }, fold, { snapshot: { every: 3 } });
  expect(again).toEqual(loaded);
  expect(await customers().loadSnapshot({ customerId: 'c-2' })).toMatchObject({ version: 7, state: { name: 'Ada Lovelace' } });
});

test('a command decides on the personal data, and on a winner’s after a lost race', async () => {
  const Customers = customers();
  await Customers.append({ customerId: 'c-3' }, [registered]);
  let raced = false;
  const result = await Customers.execute(
    { customerId: 'c-3' },
    {
      initial: noCustomer,
      evolve: evolveCustomer,
      // The first decision loses to an append of a friend's personal data; the second sees it, from the winner.
      decide: async (state) => {
        if (!raced) {
          raced = true;
          await customers().append({ customerId: 'c-3' }, [referred]);
        }
        return [ordered(`for-${state.friends.join('+') || 'nobody'}`)];
      },
    },
  );
  expect(result.state).toMatchObject({ name: 'Ada Lovelace', friends: ['Grace Hopper'], orders: 1 });
  expect(result.events.map((event) => event.data)).toEqual([{ orderId: 'for-Grace Hopper', total: 10 }]);
});

test('the decoder opens a batch once its keys are loaded, and says so when they are not', async () => {
  await customers().append({ customerId: 'c-4' }, [registered, referred]);
  const records = (await readStreamRecords(tables.eventsStreamArn as string)).filter((record) =>
    JSON.stringify(record.dynamodb?.Keys).includes('Customer#c-4'),
  );
  const images = records.map((record) => asLambdaRecord(record).dynamodb?.NewImage);
  const cold = decoder({ Customer: customers() });
  expect(() => cold(images[0])).toThrow(SubjectKeyNotLoadedError);
  const reader = customers();
  const decode = decoder({ Customer: reader, Order: orderStream(client, tables.events as string) });
  const before = reader.subjectKeys?.stats.requests ?? 0;
  await decode.loadKeys(images);
  await decode.loadKeys(images);
  // One BatchGetItem for both subjects (c-4 and c-9), then none: they are loaded.
  expect((reader.subjectKeys?.stats.requests ?? 0) - before).toBe(1);
  expect(decode(images[0])?.events.map((event) => event.data)).toEqual([registered.data, referred.data]);
});

test('a batch of records, its gap reads, catch-up, rebuild and backfill fold the personal data into rows', async () => {
  const Customers = customers();
  const profiles = setup.profiles();
  const projection = customerProfileProjection(Customers, profiles);
  await Customers.append({ customerId: 'c-5' }, [registered]);
  await Customers.append({ customerId: 'c-5' }, [moved]);
  await Customers.append({ customerId: 'c-5' }, [referred]);
  const records = (await readStreamRecords(tables.eventsStreamArn as string))
    .filter((record) => record.eventName === 'INSERT' && JSON.stringify(record.dynamodb?.Keys).includes('Customer#c-5'))
    .map(asLambdaRecord);
  // Only the last record: the first two are read from the stream (a gap read).
  const result = await processBatch([records[2]], { projections: { profiles: projection } });
  expect(result.response.batchItemFailures).toEqual([]);
  const events = (await Customers.read({ customerId: 'c-5' })) as CustomerEvent[];
  expect(await profiles.get({ customerId: 'c-5' }, { consistent: true })).toMatchObject(profileOf('c-5', events));
  await Customers.append({ customerId: 'c-5' }, [ordered('o-1')]);
  await projection.catchUp({ customerId: 'c-5' });
  expect((await profiles.get({ customerId: 'c-5' }, { consistent: true }))?.orders).toBe(1);
  await projection.rebuild({ customerId: 'c-5' });
  expect(await profiles.get({ customerId: 'c-5' }, { consistent: true })).toMatchObject(
    profileOf('c-5', [...events, ...(await Customers.read({ customerId: 'c-5' }, { fromVersion: 4 }))] as CustomerEvent[]),
  );
  const backfilled = await customerProfileProjection(customers(), profiles).backfill({ segments: 1 });
  expect(backfilled.done).toBe(true);
  expect((await profiles.get({ customerId: 'c-2' }, { consistent: true }))?.name).toBe('Ada Lovelace');
});

test('the test kit’s projection spec delivers sealed records every way and checks the rows', async () => {
  await projectionSpec(
    ({ events, readModels }) => customerProfileProjection(customerStream(client, events, setup.keys()), customerProfiles(client, readModels)),
    { deliveries: ['inOrder', 'shuffled', 'duplicated'] },
  )
    .given([
      { streamId: { customerId: 'k-1' }, events: [registered] },
      { streamId: { customerId: 'k-1' }, events: [referred, moved] },
    ])
    .thenRows([
      {
        key: { customerId: 'k-1' },
        row: { customerId: 'k-1', name: 'Ada Lovelace', email: 'ada@example.com', city: 'London', friends: ['Grace Hopper'], orders: 0, version: 3 },
      },
    ]);
});
