import fc from 'fast-check';
import { SubjectForgottenError, type StreamEvent } from 'dynafold';
import { lambdaHandler } from 'dynafold/lambda';
import { Erased, customerProfileProjection, evolveCustomer, noCustomer, profileOf, testKeyProvider, type CustomerEvent } from '../support/customers';
import { CustomerSetup, createCustomerTables } from '../support/customer-setup';
import { deliver, deliveries, propertySettings, propertyTimeout, type Delivery } from '../support/delivery';
import { testClient } from '../support/dynamo';
import { plaintextIn, recordValues, scanTable } from '../support/plaintext';
import { readStreamRecords } from '../support/stream-records';
import { countRequests } from '../support/requests';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';

// Histories of several subjects (two customers with streams, a third person only ever referred to), whose
// events are delivered live to a projection with an outbox, loaded with snapshots and rebuilt, while
// random subjects are forgotten at random points: between appends, during a delivery, during a rebuild.
// Afterwards (the rows of the forgotten subjects' instances rebuilt, as the guide says), no personal value
// of a forgotten subject is anywhere: events, stream records, snapshots, rows, outbox and its records, key
// table; every other subject's data reads intact; every row and every load equals the fold of the history
// as it reads now, redacted; a load right after a load starts from a snapshot (fewer than `every` events
// folded past it), even one a forget made unreadable, and no save of a snapshot is refused.
const client = testClient();
const requests = countRequests(client);
const provider = testKeyProvider();
afterAll(() => client.destroy());

const customers = ['a', 'b'] as const;
const people = ['a', 'b', 'c'] as const;
type Customer = (typeof customers)[number];
type Person = (typeof people)[number];

type Step =
  | {
      readonly kind: 'append';
      readonly customer: Customer;
      readonly event: 'Registered' | 'AddressChanged' | 'Referred' | 'OrderPlaced';
      readonly friend: Person;
    }
  | { readonly kind: 'forget'; readonly subject: Person }
  | { readonly kind: 'deliver'; readonly forgetting: Person | undefined }
  | { readonly kind: 'rebuild'; readonly customer: Customer; readonly forgetting: Person | undefined }
  | { readonly kind: 'load'; readonly customer: Customer };

const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('append' as const),
        customer: fc.constantFrom(...customers),
        event: fc.constantFrom('Registered' as const, 'AddressChanged' as const, 'Referred' as const, 'OrderPlaced' as const),
        friend: fc.constantFrom(...people),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), subject: fc.constantFrom(...people) }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('deliver' as const), forgetting: fc.option(fc.constantFrom(...people), { nil: undefined }) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('rebuild' as const),
        customer: fc.constantFrom(...customers),
        forgetting: fc.option(fc.constantFrom(...people), { nil: undefined }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('load' as const), customer: fc.constantFrom(...customers) }) },
  ),
  { minLength: 4, maxLength: 14 },
);

/** The personal values of an event, by the subject they belong to (what the oracle redacts and the scan looks for). */
function personalValues(event: CustomerEvent): Array<readonly [Person, string]> {
  const subject = event.streamId as Person;
  switch (event.type) {
    case 'Registered':
      return [
        [subject, event.data.name],
        [subject, event.data.email],
      ];
    case 'AddressChanged':
      return event.data.address === null ? [] : [[subject, event.data.address.street]];
    case 'Referred':
      return [[event.data.friendId as Person, event.data.friendName]];
    case 'OrderPlaced':
      return [];
  }
}

/** An event as it reads once `forgotten` subjects' keys are gone. */
function redacted(event: CustomerEvent, forgotten: ReadonlySet<string>): CustomerEvent {
  const own = forgotten.has(event.streamId);
  switch (event.type) {
    case 'Registered':
      return own ? { ...event, data: { ...event.data, name: Erased.name, email: Erased.email } } : event;
    case 'AddressChanged':
      return own ? { ...event, data: { address: Erased.address } } : event;
    case 'Referred':
      return forgotten.has(event.data.friendId) ? { ...event, data: { ...event.data, friendName: Erased.friendName } } : event;
    case 'OrderPlaced':
      return event;
  }
}

let cases = 0;

test(
  'after forgets at random points no plaintext of a forgotten subject is stored anywhere; the rest reads intact and every row is the redacted fold',
  async () => {
    await fc.assert(
      fc.asyncProperty(steps, deliveries, async (history, delivery) => {
        const setup = new CustomerSetup(client, provider, await createCustomerTables(client, 'prop-erasure', { outbox: true }));
        try {
          await runCase(++cases, setup, history, delivery);
        } finally {
          await setup.tables.delete();
        }
      }),
      propertySettings(10),
    );
  },
  propertyTimeout(10),
);

async function runCase(n: number, setup: CustomerSetup, history: ReadonlyArray<Step>, delivery: Delivery): Promise<void> {
  const { tables } = setup;
  const keys = setup.keys();
  const Customers = setup.customers(keys);
  const profiles = setup.profiles();
  const projection = customerProfileProjection(Customers, profiles, { outbox: tables.outbox as string });
  const handler = lambdaHandler({ projections: { profiles: projection }, logger: false });
  const appended: CustomerEvent[] = [];
  const forgotten = new Set<string>();
  const delivered = new Set<string>();

  const deliverNew = async () => {
    const records = (await readStreamRecords(tables.eventsStreamArn as string)).filter(
      (record) => record.eventName === 'INSERT' && !delivered.has(record.dynamodb?.SequenceNumber as string),
    );
    await deliver(records, delivery, (batch) => handler({ Records: batch as never }, {} as never));
    for (const record of records) delivered.add(record.dynamodb?.SequenceNumber as string);
  };
  const forget = async (subject: Person) => {
    await keys.forget(subject);
    forgotten.add(subject);
  };

  for (const [index, step] of history.entries()) {
    switch (step.kind) {
      case 'append': {
        const tag = `${n}-${index}-${step.customer}`;
        const event =
          step.event === 'Registered'
            ? { type: 'Registered' as const, data: { name: `Name-${tag}`, email: `mail-${tag}@example.com`, country: 'UK' } }
            : step.event === 'AddressChanged'
              ? { type: 'AddressChanged' as const, data: { address: { street: `Street-${tag}`, city: 'London' } } }
              : step.event === 'Referred'
                ? { type: 'Referred' as const, data: { friendId: step.friend, friendName: `Friend-${step.friend}-${tag}` } }
                : { type: 'OrderPlaced' as const, data: { orderId: `o-${tag}`, total: index } };
        const owner = event.type === 'Referred' ? event.data.friendId : event.type === 'OrderPlaced' ? undefined : step.customer;
        if (owner !== undefined && forgotten.has(owner)) {
          await expect(Customers.append({ customerId: step.customer }, [event])).rejects.toThrow(SubjectForgottenError);
        } else {
          appended.push(...((await Customers.append({ customerId: step.customer }, [event])).events as CustomerEvent[]));
        }
        break;
      }
      case 'forget':
        await forget(step.subject);
        break;
      case 'deliver':
        await Promise.all([deliverNew(), step.forgetting === undefined ? undefined : forget(step.forgetting)]);
        break;
      case 'rebuild':
        await Promise.all([projection.rebuild({ customerId: step.customer }), step.forgetting === undefined ? undefined : forget(step.forgetting)]);
        break;
      case 'load':
        await loadTwice(Customers, step.customer);
        break;
    }
  }
  await deliverNew();
  // The procedure after a forget: rebuild the rows of every instance that held a forgotten subject's data.
  const touched = new Set(
    appended.filter((event) => personalValues(event).some(([subject]) => forgotten.has(subject))).map((event) => event.streamId),
  );
  for (const customerId of touched) await projection.rebuild({ customerId });

  // Nothing of a forgotten subject anywhere.
  const secrets = appended.flatMap((event) =>
    personalValues(event)
      .filter(([subject]) => forgotten.has(subject))
      .map(([, value]) => value),
  );
  const outboxArn = (await client.send(new DescribeTableCommand({ TableName: tables.outbox }))).Table?.LatestStreamArn as string;
  const stored = [
    ...(await scanTable(client, tables.events as string)),
    ...recordValues(await readStreamRecords(tables.eventsStreamArn as string)),
    ...(await scanTable(client, tables.readModels as string)),
    ...(await scanTable(client, tables.outbox as string)),
    ...recordValues(await readStreamRecords(outboxArn)),
    ...(await scanTable(client, tables.subjectKeys as string)),
  ];
  expect(plaintextIn(stored, secrets)).toEqual([]);
  const keyItems = await scanTable(client, tables.subjectKeys as string);
  for (const [label, item] of keyItems) {
    if ([...forgotten].some((subject) => label.includes(`subject#${subject} `))) expect(Object.keys(item as object)).not.toContain('wrappedKey');
  }

  // The rest intact, every read, load and row the fold of the history as it reads now.
  for (const customerId of customers) {
    const expected = appended.filter((event) => event.streamId === customerId).map((event) => redacted(event, forgotten));
    const events = (await setup.customers().read({ customerId })) as StreamEvent[];
    expect(events.map(({ version, type, data }) => ({ version, type, data }))).toEqual(
      expected.map(({ version, type, data }) => ({ version, type, data })),
    );
    expect((await loadTwice(Customers, customerId)).state).toEqual(expected.reduce(evolveCustomer, noCustomer));
    const row = await profiles.get({ customerId }, { consistent: true });
    if (expected.length === 0) expect(row).toBeUndefined();
    else expect(row).toMatchObject(profileOf(customerId, expected));
  }
}

/**
 * Loads a customer twice with snapshots every 2 events: the second load starts from a snapshot no more
 * than one event behind (the first saved one where it folded 2 or more, even over a snapshot a forget made
 * unreadable), and neither load's save of a snapshot is refused.
 */
async function loadTwice(Customers: ReturnType<CustomerSetup['customers']>, customerId: Customer) {
  const options = { snapshot: { every: 2 } };
  requests.reset();
  const loaded = await Customers.load({ customerId }, { initial: noCustomer, evolve: evolveCustomer }, options);
  let folded = 0;
  const counting = (state: typeof noCustomer, event: CustomerEvent) => ((folded += 1), evolveCustomer(state, event));
  expect(await Customers.load({ customerId }, { initial: noCustomer, evolve: counting }, options)).toEqual(loaded);
  expect(folded).toBeLessThan(2);
  expect(requests.failures.get('PutItemCommand:ConditionalCheckFailedException') ?? 0).toBe(0);
  return loaded;
}
