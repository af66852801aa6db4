import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { ChangeFeedConsumer, DynamoCheckpointStoreDefaults } from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { createCheckpointStore, disableStream, waitFor } from '../feed/support';
import { DeliveryLog, partitionKeys, quickFeed, simulatedWorld, writeRounds, written, deliverInto } from './support';

const client = testClient();
afterAll(() => client.destroy());

describe('the change feed on 32 simulated shards that roll over and split while it reads', () => {
  it('delivers every record once, in order per key, parents before children, and finishes every shard', async () => {
    const world = await simulatedWorld(client, {
      seed: 17,
      shards: 32,
      rolloverChance: 0.03,
      splitChance: 0.03,
      maxOpenShards: 48,
      iteratorLifetimeMs: 1_500,
      describePageSize: 10,
      faults: { throttleChance: 0.05, failureChance: 0.03, maxEmptyPages: 2, maxListingLagMs: 150 },
    });
    const { store, table: checkpointTable } = await createCheckpointStore(client);
    const startedAt = Date.now();
    const keys = partitionKeys(32);
    const rounds = 8;
    const log = new DeliveryLog(world.simulation);
    const feed = new ChangeFeedConsumer({
      ...quickFeed,
      streamsClient: world.client(),
      streamArn: world.streamArn,
      checkpoints: store,
      lease: false,
    });
    const run = deliverInto(feed, log);
    // Writes go on while the feed reads, so shards close under it.
    await writeRounds(client, world.table, keys, 0, rounds / 2);
    await waitFor(() => log.deliveries.length >= keys.length, 20_000, 'some records delivered');
    await writeRounds(client, world.table, keys, rounds / 2, rounds);
    await waitFor(() => log.deliveries.length >= keys.length * rounds, 30_000, 'every record delivered');
    await disableStream(client, world.table);
    await run;

    const lineage = world.simulation.lineage();
    const stats = world.simulation.stats.snapshot();
    expect(stats['split']).toBeGreaterThan(0);
    expect(stats['rollover']).toBeGreaterThan(0);
    expect(stats['throttled']).toBeGreaterThan(0);
    expect(stats['failed']).toBeGreaterThan(0);
    expect(stats['emptyPage']).toBeGreaterThan(0);
    expect(log.deliveries.map((d) => `${d.pk}:${d.n}`).sort()).toEqual(written(keys, 0, rounds).sort());
    for (const [pk, ns] of log.byKey()) expect({ pk, ns }).toEqual({ pk, ns: Array.from({ length: rounds }, (_, n) => n) });
    expect(log.childrenBeforeParents()).toEqual([]);
    // Every shard of the stream was read to its end and checkpointed as finished.
    const checkpoints = await store.getCheckpoints({ consumer: 'default', streamArn: world.streamArn });
    const unfinished = lineage.filter((shard) => checkpoints.get(shard.shardId)?.kind !== 'finished').map((s) => s.shardId);
    expect(unfinished).toEqual([]);
    // And each finished checkpoint expires the configured time after its shard finished (DynamoDB's TTL
    // deletes it then; DynamoDB Local can't be made to, so the expiry written is what is checked).
    const items = (await client.send(new ScanCommand({ TableName: checkpointTable, ConsistentRead: true }))).Items ?? [];
    const expiries = items.filter((item) => item['finished']?.BOOL === true).map((item) => Number(item['ttl']?.N));
    expect(expiries).toHaveLength(lineage.length);
    const ttlSeconds = DynamoCheckpointStoreDefaults.finishedTtlMs / 1000;
    for (const expiry of expiries) {
      expect(expiry).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000 + ttlSeconds));
      expect(expiry).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000 + ttlSeconds));
    }
    world.close();
  });
});
