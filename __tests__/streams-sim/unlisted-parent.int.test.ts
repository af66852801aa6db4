import { testClient } from '../support/dynamo';
import { simulatedWorld, writeAndDrain } from './support';

const client = testClient();
afterAll(() => client.destroy());

describe('the change feed when DescribeStream lists a child before its parent', () => {
  // Seeds and writes found by the lineage property that list a shard before its parent (listing lags are
  // per shard): while the feed runs, and at its start (the parent then answers GetShardIterator unlisted).
  it.each([
    { seed: 1820443149, writes: ['a', 'a', 'a', 'a', 'a', 'a', 'aa', 'ba', 'a', 'a', 'ba', 'ba'], lagMs: 1_500 },
    { seed: 739183857, writes: Array.from({ length: 12 }, () => 'a'), lagMs: 50 },
  ])('holds a child back until its parent is listed and read (seed $seed)', async ({ seed, writes, lagMs }) => {
    const world = await simulatedWorld(client, {
      seed,
      shards: 4,
      rolloverChance: 0.1,
      splitChance: 0.1,
      faults: { throttleChance: 0.05, failureChance: 0.05, maxEmptyPages: 2, maxListingLagMs: lagMs },
    });
    const { log, counts } = await writeAndDrain(client, world, writes);
    // The shards open as the feed's first request takes the records in.
    const lineage = world.simulation.lineage();
    const listedFrom = new Map(lineage.map((shard) => [shard.shardId, shard.listedFrom]));
    const listedFirst = lineage.filter((shard) => shard.parentShardId !== undefined && shard.listedFrom < (listedFrom.get(shard.parentShardId) ?? 0));
    expect(listedFirst.length).toBeGreaterThan(0);

    expect(log.byKey()).toEqual(new Map([...counts].map(([pk, n]) => [pk, Array.from({ length: n }, (_, i) => i)])));
    expect(log.childrenBeforeParents()).toEqual([]);
    world.close();
  });
});
