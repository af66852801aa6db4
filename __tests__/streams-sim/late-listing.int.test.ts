import { ChangeFeedConsumer, MemoryCheckpointStore } from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { disableStream, waitFor, writeItems } from '../feed/support';
import { DeliveryLog, quickFeed, simulatedWorld, deliverInto } from './support';

const client = testClient();
afterAll(() => client.destroy());

/**
 * Items 0–2 of key `a` in the first shard, then a rollover whose child the simulation lists `lagMs` × a
 * seeded share late, then items 3–4 in the child. Returns the world, both shards, how long after the
 * rollover the child is listed, a feed reading the simulated stream, and the log it delivers into.
 */
async function rolloverListedLate(seed: number, lagMs: number, feedOptions: { disabledSettleMs?: number } = {}) {
  const world = await simulatedWorld(client, { seed, faults: { maxListingLagMs: lagMs } });
  await writeItems(client, world.table, 'a', 0, 3);
  await world.simulation.sync();
  const [parent] = world.simulation.lineage();
  const [child] = world.simulation.reshard(parent?.shardId as string, 'rollover');
  const listedIn = (world.simulation.lineage().find((s) => s.shardId === child)?.listedFrom ?? 0) - world.simulation.clock.now();
  await writeItems(client, world.table, 'a', 3, 5);
  const log = new DeliveryLog(world.simulation);
  const feed = () =>
    new ChangeFeedConsumer({
      ...quickFeed,
      ...feedOptions,
      streamsClient: world.client(),
      streamArn: world.streamArn,
      checkpoints: new MemoryCheckpointStore(),
    });
  /** The shard each item was delivered from, in delivery order. */
  const delivered = () => log.deliveries.map((d) => [d.n, d.shardId]);
  const expected = (items: ReadonlyArray<number>) => items.map((n) => [n, n < 3 ? parent?.shardId : child]);
  return { world, listedIn, feed, log, delivered, expected };
}

describe('the change feed when DescribeStream lists a new shard late', () => {
  it('finds the child by describing again and reads it after its parent', async () => {
    const { world, listedIn, feed, log, delivered, expected } = await rolloverListedLate(5, 1_500);
    const run = deliverInto(feed(), log);
    await waitFor(() => log.deliveries.length >= 5, 15_000, 'the child read once listed');
    await disableStream(client, world.table);
    await run;
    // The child was left out of DescribeStream for a while after its parent was drained.
    expect(listedIn).toBeGreaterThan(300);
    expect(delivered()).toEqual(expected([0, 1, 2, 3, 4]));
    world.close();
  });

  it.each([
    { disabledSettleMs: 0, read: [0, 1, 2], what: 'ends without the child when told not to wait' },
    { disabledSettleMs: 2_500, read: [0, 1, 2, 3, 4], what: 'waits for a child listed late after the stream was disabled, and reads it' },
  ])('$what (disabledSettleMs $disabledSettleMs)', async ({ disabledSettleMs, read }) => {
    // Seed 4 lists the first child 99% of the 2 s lag late.
    const { world, listedIn, feed, log, delivered, expected } = await rolloverListedLate(4, 2_000, { disabledSettleMs });
    await world.simulation.sync();
    // Disabled while the child, holding items 3 and 4, is not listed yet.
    await disableStream(client, world.table);
    await deliverInto(feed(), log);
    expect(listedIn).toBeGreaterThan(1_500);
    expect(delivered()).toEqual(expected(read));
    world.close();
  });
});
