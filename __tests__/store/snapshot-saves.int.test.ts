/**
 * Snapshot saves that must not be refused by their own condition: a retry of a PutItem whose answer was
 * lost after DynamoDB applied it meets the snapshot it wrote, and a dormant stream whose snapshot was
 * sealed for a subject since forgotten replaces it at the same version with a redacted one.
 */
import { Erased, evolveCustomer, noCustomer, type CustomerEvent } from '../support/customers';
import { customerSetupOfFile } from '../support/customer-setup';
import { countRequests } from '../support/requests';

const setup = customerSetupOfFile('snapsave');
const { client } = setup;
const requests = countRequests(client);

/** Snapshot PutItems whose answer is lost once DynamoDB applied them, as a timeout would (the SDK retries them). */
let loseAnswers = 0;
let snapshotPuts = 0;
client.middlewareStack.add(
  (next, context) => async (args) => {
    const input = (args as { input?: { Item?: Record<string, { S?: string }> } }).input;
    const snapshot = context.commandName === 'PutItemCommand' && (input?.Item?.['sk']?.S ?? '').startsWith('e$snapshot#');
    if (!snapshot) return next(args);
    snapshotPuts++;
    const answer = await next(args);
    if (loseAnswers === 0) return answer;
    loseAnswers--;
    throw Object.assign(new Error('Response lost after the write (injected)'), { name: 'TimeoutError', $metadata: {} });
  },
  // Inside the SDK's retry loop (retryMiddleware is finalizeRequest/high): the retry is sent again through it.
  { step: 'finalizeRequest', priority: 'low', name: 'loseSnapshotAnswers' },
);

const registered = (name: string) => ({ type: 'Registered', data: { name, email: `${name.toLowerCase()}@example.com`, country: 'UK' } }) as const;
const referred = (friendId: string, friendName: string) => ({ type: 'Referred', data: { friendId, friendName } }) as const;
const ordered = (orderId: string) => ({ type: 'OrderPlaced', data: { orderId, total: 10 } }) as const;

describe('a save whose answer was lost', () => {
  test('is retried by the SDK, meets the snapshot it wrote, and reports it saved', async () => {
    const Customers = setup.customers();
    await Customers.append({ customerId: 'l-1' }, [registered('Ada'), ordered('o-1')]);
    loseAnswers = 1;
    snapshotPuts = 0;
    expect(await Customers.saveSnapshot({ customerId: 'l-1' }, { version: 2, state: { orders: 1 } })).toBe(true);
    expect(snapshotPuts).toBe(2);
    expect(await Customers.loadSnapshot({ customerId: 'l-1' })).toEqual({ version: 2, state: { orders: 1 } });
  });

  test('a snapshot of another state version, or another writer’s at the same version, still refuses it', async () => {
    const Customers = setup.customers();
    await Customers.append({ customerId: 'l-2' }, [ordered('o-1'), ordered('o-2')]);
    expect(await Customers.saveSnapshot({ customerId: 'l-2' }, { version: 2, state: { orders: 2 }, stateVersion: 2 })).toBe(true);
    loseAnswers = 0;
    expect(await Customers.saveSnapshot({ customerId: 'l-2' }, { version: 2, state: { orders: 2 }, stateVersion: 2 })).toBe(false);
    expect(await Customers.saveSnapshot({ customerId: 'l-2' }, { version: 2, state: { orders: 2 } })).toBe(false);
  });
});

test('a snapshot sealed for a subject since forgotten is replaced at its version: the next load starts from it, and no PutItem fails', async () => {
  const writer = setup.keys();
  const Customers = setup.customers(writer);
  const id = { customerId: 'z-1' };
  await Customers.append(id, [registered('Ada'), referred('z-2', 'Grace')]);
  await Customers.append(id, [ordered('o-1'), ordered('o-2')]);
  let folded = 0;
  const fold = { initial: noCustomer, evolve: (state: typeof noCustomer, event: CustomerEvent) => ((folded += 1), evolveCustomer(state, event)) };
  const options = { snapshot: { every: 2 } };
  await Customers.load(id, fold, options);
  expect(await Customers.loadSnapshot(id)).toMatchObject({ version: 4 });

  await writer.forget('z-2');
  const redacted = { state: { name: 'Ada', email: 'ada@example.com', city: undefined, friends: [Erased.friendName], orders: 2 }, version: 4 };
  // The first load after the forget folds the redacted events and saves them over the unreadable snapshot.
  requests.reset();
  folded = 0;
  expect(await Customers.load(id, fold, options)).toEqual(redacted);
  expect(folded).toBe(4);
  expect(requests.count('PutItemCommand')).toBe(1);
  expect(Object.fromEntries(requests.failures)).toEqual({});
  expect(await Customers.loadSnapshot(id)).toMatchObject({ version: 4, state: { friends: [Erased.friendName] } });

  // The second starts from it: one Query, nothing folded, nothing saved.
  requests.reset();
  folded = 0;
  expect(await Customers.load(id, fold, options)).toEqual(redacted);
  expect(folded).toBe(0);
  expect(Object.fromEntries(requests.counts)).toEqual({ QueryCommand: 1 });
  expect(Object.fromEntries(requests.failures)).toEqual({});
});
