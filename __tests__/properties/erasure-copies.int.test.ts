import { GetItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { PersonalDataTamperedError } from 'dynafold';
import { customerSetupOfFile } from '../support/customer-setup';
import { customerStream } from '../support/customers';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { testClient } from '../support/dynamo';

// A customer's Registered events, appended one to three at a time (so some share a commit), some of the
// appends losing a race to another writer's first (so they seal again for the versions they land at).
// Every event reads as appended. Then one sealed value is copied over another with a raw UpdateItem: from
// one event to another (the same instance, type, subject and field: nothing but the event tells them
// apart), or to another field of the same event. Whatever is copied where, a read of the target is a
// PersonalDataTamperedError and never a value, and the events of the other commits read as appended.
const setup = customerSetupOfFile('prop-erasure-copies');
const racing = testClient();
afterAll(() => racing.destroy());
/** The append another writer makes before the racing client's next write, when set. */
let rival: (() => Promise<unknown>) | undefined;
racing.middlewareStack.add(
  (next, context) => async (args) => {
    const first = rival;
    if (first !== undefined && (context.commandName === 'PutItemCommand' || context.commandName === 'TransactWriteItemsCommand')) {
      rival = undefined;
      await first();
    }
    return next(args);
  },
  { step: 'initialize', name: 'rival-first' },
);

const fields = ['name', 'email'] as const;
type Field = (typeof fields)[number];

interface Case {
  /** The appends: how many events each holds (one commit each), and whether another writer's append beats it to its version. */
  readonly appends: ReadonlyArray<{ readonly size: number; readonly raced: boolean }>;
  /** Which event (by its place among all appended, from 0) and field is copied over which; taken modulo their number. */
  readonly from: { readonly event: number; readonly field: Field };
  readonly to: { readonly event: number; readonly field: Field };
}

const place = fc.record({ event: fc.nat({ max: 8 }), field: fc.constantFrom(...fields) });
const cases: fc.Arbitrary<Case> = fc.record({
  appends: fc.array(fc.record({ size: fc.integer({ min: 1, max: 3 }), raced: fc.boolean() }), { minLength: 1, maxLength: 3 }),
  from: place,
  to: place,
});

/** A commit as written: its first version and how many events it holds. */
interface Commit {
  readonly first: number;
  readonly size: number;
}

/** Where event `version` is stored: its commit's key, and the path to its attributes in the commit. */
function locate(commits: ReadonlyArray<Commit>, customerId: string, version: number) {
  const commit = commits.find(({ first, size }) => version >= first && version < first + size) as Commit;
  return {
    key: { pk: { S: `Customer#${customerId}` }, sk: { S: `e#${String(commit.first).padStart(10, '0')}` } },
    path: commit.size === 1 ? '' : `events[${version - commit.first}].`,
    index: version - commit.first,
  };
}

let tags = 0;
const registered = () => {
  const tag = ++tags;
  return { type: 'Registered', data: { name: `Name ${tag}`, email: `mail-${tag}@example.com`, country: 'UK' } } as const;
};

let runs = 0;

test(
  'a sealed value copied to another event or field never reads: PersonalDataTamperedError, the rest intact',
  async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const customerId = `x-${++runs}`;
        const writer = customerStream(racing, setup.tables.events as string, setup.keys());
        const commits: Commit[] = [];
        const appended = new Map<number, unknown>();
        for (const { size, raced } of c.appends) {
          if (raced) {
            rival = async () => {
              const won = await setup.customers().append({ customerId }, [registered()]);
              for (const event of won.events) appended.set(event.version, event.data);
              commits.push({ first: won.version, size: 1 });
            };
          }
          const result = await writer.append({ customerId }, Array.from({ length: size }, registered));
          expect(rival).toBeUndefined();
          for (const event of result.events) appended.set(event.version, event.data);
          commits.push({ first: (result.events[0] as { version: number }).version, size });
        }
        const count = appended.size;
        expect((await setup.customers().read({ customerId })).map((event) => event.data)).toEqual(
          [...appended.keys()].sort((a, b) => a - b).map((v) => appended.get(v)),
        );

        const from = { version: (c.from.event % count) + 1, field: c.from.field };
        const to = { version: (c.to.event % count) + 1, field: c.to.field };
        fc.pre(from.version !== to.version || from.field !== to.field);
        const source = locate(commits, customerId, from.version);
        const target = locate(commits, customerId, to.version);
        const item = await setup.client.send(new GetItemCommand({ TableName: setup.tables.events, Key: source.key, ConsistentRead: true }));
        const attributes = source.path === '' ? item.Item : item.Item?.['events']?.L?.[source.index]?.M;
        const value = attributes?.['pd']?.M?.[customerId]?.M?.[from.field];
        expect(value?.B).toBeInstanceOf(Uint8Array);
        await setup.client.send(
          new UpdateItemCommand({
            TableName: setup.tables.events,
            Key: target.key,
            UpdateExpression: `SET ${target.path}pd.#subject.#field = :copied`,
            ExpressionAttributeNames: { '#subject': customerId, '#field': to.field },
            ExpressionAttributeValues: { ':copied': value as AttributeValue },
          }),
        );
        const reader = setup.customers();
        await expect(reader.read({ customerId })).rejects.toThrow(PersonalDataTamperedError);
        await expect(reader.read({ customerId }, { fromVersion: to.version, toVersion: to.version })).rejects.toThrow(PersonalDataTamperedError);
        // The events of the other commits read as appended.
        for (const [version, data] of appended) {
          if (locate(commits, customerId, version).key.sk.S === target.key.sk.S) continue;
          expect((await reader.read({ customerId }, { fromVersion: version, toVersion: version }))[0]?.data).toEqual(data);
        }
      }),
      propertySettings(30),
    );
  },
  propertyTimeout(30),
);
