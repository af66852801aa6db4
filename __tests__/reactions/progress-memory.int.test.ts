/**
 * A process remembers the progress it wrote, so an instance's next event reads none, and its first event
 * reads none either (there is no progress before it). The transaction's condition on the progress row is
 * what keeps that safe: a row another process wrote since, or one there after all (a redelivery in a fresh
 * process), fails the write, which reads the row at once and goes on from it.
 */
import { eventsTableDefinition } from 'dynafold';
import { Reaction, command, reactionsTableDefinition } from 'dynafold/reactions';
import { createTestTable, testClient } from '../support/dynamo';
import { countRequests } from '../support/requests';
import { reservations, reserve, shopOrders, stockStream } from '../support/shop';

const client = testClient();
const requests = countRequests(client);
let eventsTable: string;
let reactionsTable: string;
let runs = 0;

beforeAll(async () => {
  eventsTable = (await createTestTable(client, eventsTableDefinition, 'memory-events')).name;
  reactionsTable = (await createTestTable(client, reactionsTableDefinition, 'memory-reactions')).name;
});
afterAll(() => client.destroy());

/** A shop whose reaction reserves stock for every order event; `process()` is another process of the same reaction. */
function shop() {
  const run = ++runs;
  const orders = shopOrders(client, eventsTable, `MOrder${run}`);
  const stock = stockStream(client, eventsTable, `MStock${run}`);
  const process = () =>
    new Reaction({
      name: `memory-${run}`,
      streams: [orders],
      client,
      table: reactionsTable,
      react: (event) =>
        event.type === 'OrderPlaced' || event.type === 'ItemAdded'
          ? command(stock, { sku: event.data.sku }, reserve(event.streamId, event.version, event.data.quantity))
          : undefined,
    });
  const placed = async (orderId: string) => (await orders.append({ orderId }, [{ type: 'OrderPlaced', data: { sku: 'pen', quantity: 1 } }])).events;
  const added = async (orderId: string) => (await orders.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 'pen', quantity: 1 } }])).events;
  return { stock, process, placed, added };
}

const progressReads = () => requests.count('GetItemCommand') + requests.count('BatchGetItemCommand');

test("a process reads no progress: not before an instance's first event, nor before the next ones it wrote the progress of", async () => {
  const { stock, process, placed, added } = shop();
  const reaction = process();
  const first = await placed('o-1');
  requests.reset();
  expect((await reaction.applyBatch(first)).outcomes[0]).toMatchObject({ status: 'applied', applied: first });
  expect(progressReads()).toBe(0);
  expect(requests.count('TransactWriteItemsCommand')).toBe(1);
  for (let n = 0; n < 3; n++) {
    const next = await added('o-1');
    requests.reset();
    expect((await reaction.applyBatch(next)).outcomes[0]).toMatchObject({ status: 'applied', applied: next });
    expect(progressReads()).toBe(0);
    expect(requests.count('TransactWriteItemsCommand')).toBe(1);
    expect(requests.failures.size).toBe(0);
  }
  expect(await reservations(stock, 'pen')).toEqual(['o-1@1', 'o-1@2', 'o-1@3', 'o-1@4']);
});

test("another process's write in between fails the remembered progress's write: the row is read at once and each event reserves once", async () => {
  const { stock, process, placed, added } = shop();
  const here = process();
  const there = process();
  await here.applyBatch(await placed('o-2'));
  await there.applyBatch(await added('o-2'));
  const third = await added('o-2');
  requests.reset();
  const { outcomes } = await here.applyBatch(third);
  expect(outcomes[0]).toMatchObject({ status: 'applied', applied: third });
  expect(requests.failures.get('TransactWriteItemsCommand:TransactionCanceledException')).toBe(1);
  expect(requests.count('GetItemCommand')).toBe(1);
  expect(await reservations(stock, 'pen')).toEqual(['o-2@1', 'o-2@2', 'o-2@3']);
  // What it read and wrote then is remembered: the next event reads nothing.
  const fourth = await added('o-2');
  requests.reset();
  await here.applyBatch(fourth);
  expect(progressReads()).toBe(0);
  expect(requests.failures.size).toBe(0);
});

test("a fresh process given an instance's first event again finds its progress there after all, and writes nothing", async () => {
  const { stock, process, placed, added } = shop();
  const first = await placed('o-3');
  await process().applyBatch([...first, ...(await added('o-3'))]);
  const { outcomes } = await process().applyBatch(first);
  expect(outcomes[0]).toMatchObject({ status: 'applied', applied: [], alreadyApplied: first });
  expect(await reservations(stock, 'pen')).toEqual(['o-3@1', 'o-3@2']);
});
