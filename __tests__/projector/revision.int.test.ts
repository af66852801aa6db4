import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Projection, eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { createTestTable, localConfig } from '../support/dynamo';
import { evolveSummary, initialSummary, orderSummaries, type OrderSummary } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';

/** A gate on one command of a client: requests of that command wait until it opens. */
function gate(client: DynamoDBClient, command: string) {
  let reached!: () => void;
  let open!: () => void;
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === command) {
        reached();
        await opened;
      }
      return next(args);
    },
    { step: 'initialize', name: `gate-${command}-${Math.random()}` },
  );
  return { arrived, open };
}

const clients: DynamoDBClient[] = [];
const newClient = () => {
  const client = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
  clients.push(client);
  return client;
};
afterAll(() => clients.forEach((client) => client.destroy()));

let eventsTable: string;
let viewsTable: string;
beforeAll(async () => {
  const setup = newClient();
  eventsTable = (await createTestTable(setup, eventsTableDefinition, 'events')).name;
  viewsTable = (await createTestTable(setup, (name) => readModelTableDefinition(name, [orderSummaries(setup, name)]), 'views')).name;
});

/** The projection before a fix: prices counted in units. After it: in cents (what a rebuild re-derives). */
function projectionOn(client: DynamoDBClient, model: string, cents: boolean, revision: boolean) {
  return new Projection({
    stream: orderStream(client, eventsTable),
    readModel: orderSummaries(client, viewsTable, model),
    key: (id) => ({ orderId: id.orderId }),
    initial: (id) => initialSummary(id.orderId),
    evolve: (state: OrderSummary, event: OrderEvent) =>
      event.type === 'ItemAdded' && cents
        ? { ...state, items: state.items + 1, total: state.total + event.data.price * 100 }
        : evolveSummary(state, event),
    checkpoint: 'version',
    revision,
  });
}

/**
 * The race a rebuild runs: the row is at the head h. A rebuild reads the stream (to h); event h+1 is
 * appended; a live applyBatch reads the row (checkpoint h) and folds h+1 onto the old state; the rebuild
 * writes the re-derived row, leaving the checkpoint at h; then the live write, conditioned on checkpoint
 * h alone, would still match and overwrite the rebuild with a row derived from the old state. Every write
 * is also conditioned on the ids of the row's last writes (and, with `revision`, on the revision), which
 * the rebuild's write changed.
 */
async function raceRebuildWithLiveWrite(model: string, revision: boolean): Promise<OrderSummary | undefined> {
  const setup = newClient();
  const stream = orderStream(setup, eventsTable);
  const orderId = `race-${model}`;
  await stream.append({ orderId }, [
    { type: 'OrderPlaced', data: { customer: 'ada' } },
    { type: 'ItemAdded', data: { sku: 'a', price: 2 } },
  ]);
  await projectionOn(setup, model, false, revision).applyBatch(await stream.read({ orderId })); // row at head v2, in units

  const rebuildClient = newClient();
  const rebuildRowRead = gate(rebuildClient, 'GetItemCommand');
  const rebuilding = projectionOn(rebuildClient, model, true, revision).rebuild({ orderId });
  await rebuildRowRead.arrived; // the rebuild has read the stream (v1..v2) and waits to read the row

  await stream.append({ orderId }, [{ type: 'ItemAdded', data: { sku: 'b', price: 3 } }], { expectedVersion: 2 });
  const [, , third] = await stream.read({ orderId });
  const liveClient = newClient();
  const liveWrite = gate(liveClient, 'PutItemCommand');
  const live = projectionOn(liveClient, model, true, revision).applyBatch([third as OrderEvent]);
  await liveWrite.arrived; // the live call read the row at v2 (old state) and waits to write v3

  rebuildRowRead.open();
  await rebuilding; // the rebuild wrote v2, re-derived in cents
  liveWrite.open();
  await live;
  return orderSummaries(setup, viewsTable, model).get({ orderId }, { consistent: true });
}

test("without a revision, the live write loses its condition too (the row's last writes changed), re-reads the rebuilt row and folds onto it", async () => {
  const row = await raceRebuildWithLiveWrite('NoRevision', false);
  // Not 2 + 300 (v3 in cents folded onto the old row in units): the 500 cents of a full fold.
  expect(row).toMatchObject({ version: 3, items: 2, total: 500 });
});

test('with a revision, the live write loses its condition, re-reads the rebuilt row and folds onto it', async () => {
  const row = await raceRebuildWithLiveWrite('WithRevision', true);
  expect(row).toMatchObject({ version: 3, items: 2, total: 500 });
});
