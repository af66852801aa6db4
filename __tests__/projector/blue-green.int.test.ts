import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { eventsTableDefinition, type AnyProjection } from 'dynafold';
import { ChangeFeedConsumer, MemoryCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { streamsClient, waitFor, localFeed } from '../feed/support';
import { createTestTable, testClient } from '../support/dynamo';
import { accountModel, accountsProjection, ledgerStream, type LedgerEvent, type LedgerStream, type NewLedgerEvent } from '../support/ledger';
import { createViewsTable } from '../support/ledger-case';
import { expectAccountRows } from '../support/ledger-truth';

const client = testClient();
const streams = streamsClient();
afterAll(() => {
  client.destroy();
  streams.destroy();
});

/** The feed of one service (one consumer, its checkpoints kept across deploys) running `projections`. */
function deploy(streamArn: string, checkpoints: MemoryCheckpointStore, projections: Record<string, AnyProjection>) {
  const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, checkpoints, consumer: 'views' });
  const running = runChangeFeed(feed, { projections });
  return {
    stop: async () => {
      await feed.stop();
      await running;
    },
  };
}

/** Whether every account row equals its fold yet. */
async function caughtUp(model: ReturnType<typeof accountModel>, history: ReadonlyMap<string, ReadonlyArray<LedgerEvent>>): Promise<boolean> {
  try {
    await expectAccountRows(model, history);
    return true;
  } catch {
    return false;
  }
}

test('blue/green: a new version of a read model is backfilled into its own table while the old one serves through the feed; readers switch, the old table goes', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'bluegreen-events');
  const writer = ledgerStream(client, events.name, 'A');
  const history = new Map<string, LedgerEvent[]>();
  const append = async (id: string, batch: NewLedgerEvent[]) =>
    history.set(`A#${id}`, [...(history.get(`A#${id}`) ?? []), ...((await writer.append({ id }, batch as never)).events as LedgerEvent[])]);
  for (const id of ['a', 'b', 'aa', 'ab', 'ba', 'bb']) {
    await append(id, [
      { type: 'Opened', data: { owner: id } },
      { type: 'Deposited', data: { owner: id, amount: id.length } },
    ]);
  }
  const checkpoints = new MemoryCheckpointStore();
  const stream: LedgerStream = ledgerStream(client, events.name, 'A');

  // Blue serves: version 1 of the model, in its table, kept up to date by the feed.
  const blueTable = await createViewsTable(client);
  const blue = accountModel(client, blueTable, 'Account');
  let readers = blue;
  const v1 = deploy(events.streamArn as string, checkpoints, { blue: accountsProjection(stream, blue, { revision: false }) });
  await waitFor(() => caughtUp(blue, history), 30_000, 'blue to serve every account');

  // Green is deployed beside it: the feed now feeds both (green gets only new events), and the backfill
  // brings green's rows over the history while accounts keep being written.
  await v1.stop();
  const greenTable = await createViewsTable(client);
  const green = accountModel(client, greenTable, 'AccountV2');
  const greenProjection = accountsProjection(stream, green, { revision: true });
  const v2 = deploy(events.streamArn as string, checkpoints, { blue: accountsProjection(stream, blue, { revision: false }), green: greenProjection });
  const [backfilled] = await Promise.all([
    greenProjection.backfill({ segments: 2, concurrency: 2 }),
    (async () => {
      for (const id of ['a', 'ab', 'aab', 'bba']) await append(id, [{ type: 'Deposited', data: { owner: id, amount: 5 } }]);
      // Readers are still on blue, which stays complete throughout.
      await waitFor(() => caughtUp(readers, history), 30_000, 'blue to follow the new deposits');
    })(),
  ]);
  expect(backfilled.done).toBe(true);
  await waitFor(() => caughtUp(green, history), 30_000, 'green to catch up with the feed');

  // The switch: readers move to green; then blue leaves the feed and its table is deleted.
  readers = green;
  await v2.stop();
  await client.send(new DeleteTableCommand({ TableName: blueTable }));
  const v3 = deploy(events.streamArn as string, checkpoints, { green: greenProjection });
  await append('b', [{ type: 'Deposited', data: { owner: 'b', amount: 7 } }]);
  await waitFor(() => caughtUp(readers, history), 30_000, 'green to serve alone');
  await v3.stop();
}, 120_000);
