import { ChangeFeedConsumer, MemoryCheckpointStore } from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { disableStream, waitFor, writeItems } from '../feed/support';
import { DeliveryLog, quickFeed, simulatedWorld, deliverInto } from './support';

const client = testClient();
afterAll(() => client.destroy());

describe('the change feed when DescribeStream lists a new shard late', () => {
  it('finds the child by describing again and reads it after its parent', async () => {
    const world = await simulatedWorld(client, { seed: 5, faults: { maxListingLagMs: 1_500 } });
    await writeItems(client, world.table, 'a', 0, 3);
    await world.simulation.sync();
    const [parent] = world.simulation.lineage();
    const [child] = world.simulation.reshard(parent?.shardId as string, 'rollover');
    const listedIn = (world.simulation.lineage().find((s) => s.shardId === child)?.listedFrom ?? 0) - world.simulation.clock.now();
    await writeItems(client, world.table, 'a', 3, 5);
    const log = new DeliveryLog(world.simulation);
    const feed = new ChangeFeedConsumer({
      ...quickFeed,
      streamsClient: world.client(),
      streamArn: world.streamArn,
      checkpoints: new MemoryCheckpointStore(),
    });
    const run = deliverInto(feed, log);
    await waitFor(() => log.deliveries.length >= 5, 15_000, 'the child read once listed');
    await disableStream(client, world.table);
    await run;
    // The child was left out of DescribeStream for a while after its parent was drained.
    expect(listedIn).toBeGreaterThan(300);
    expect(log.deliveries.map((d) => [d.n, d.shardId])).toEqual([0, 1, 2, 3, 4].map((n) => [n, n < 3 ? parent?.shardId : child]));
    world.close();
  });
});
