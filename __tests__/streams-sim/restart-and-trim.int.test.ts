import { ChangeFeedConsumer, ChangeFeedTrimmedError, runBatches, type ChangeFeedBatch } from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { createCheckpointStore, disableStream, waitFor } from '../feed/support';
import { DeliveryLog, partitionKeys, quickFeed, simulatedWorld, writeRounds, written, deliverInto } from './support';

const client = testClient();
afterAll(() => client.destroy());

/** Reads `feed` with `for await`, committing every batch, until `enough()` holds; returns what was committed. */
async function readUntil(feed: ChangeFeedConsumer, log: DeliveryLog, enough: () => boolean): Promise<string[]> {
  const committed: string[] = [];
  for await (const batch of feed as AsyncIterable<ChangeFeedBatch>) {
    const delivered = log.add(batch);
    await batch.commit();
    committed.push(...delivered.map((d) => `${d.pk}:${d.n}`));
    if (enough()) break;
  }
  return committed;
}

describe('the change feed restarted on a simulated stream', () => {
  it('resumes every shard after its checkpoint, mid-lineage: nothing committed comes again, nothing is lost', async () => {
    const world = await simulatedWorld(client, { seed: 29, shards: 8, rolloverChance: 0.08, splitChance: 0.08, faults: { maxEmptyPages: 1 } });
    const { store } = await createCheckpointStore(client);
    const keys = partitionKeys(8);
    const key = { consumer: 'default', streamArn: world.streamArn };
    await writeRounds(client, world.table, keys, 0, 10);
    const first = new DeliveryLog(world.simulation);
    const options = { ...quickFeed, batchSize: 8, checkpoints: store, streamArn: world.streamArn, lease: { durationMs: 15_000 } };
    const committed = await readUntil(
      new ChangeFeedConsumer({ ...options, streamsClient: world.client() }),
      first,
      () => first.deliveries.length >= 40,
    );
    // Stopped mid-lineage: some shards finished, others part read, children not started.
    const atStop = await store.getCheckpoints(key);
    const kinds = [...atStop.values()].map((checkpoint) => checkpoint.kind);
    expect(kinds).toContain('finished');
    expect(kinds).toContain('sequence');
    expect(world.simulation.lineage().length).toBeGreaterThan(atStop.size);

    await writeRounds(client, world.table, keys, 10, 13);
    const second = new DeliveryLog(world.simulation);
    const run = deliverInto(new ChangeFeedConsumer({ ...options, streamsClient: world.client() }), second);
    await waitFor(() => second.deliveries.length + committed.length >= keys.length * 13, 30_000, 'the rest delivered');
    await disableStream(client, world.table);
    await run;

    const again = second.deliveries.map((d) => `${d.pk}:${d.n}`);
    expect(again.filter((entry) => committed.includes(entry))).toEqual([]);
    expect([...committed, ...again].sort()).toEqual(written(keys, 0, 13).sort());
    // Per key, the second run starts right after the last committed item and goes on in order.
    const lastCommitted = new Map<string, number>();
    for (const entry of committed) {
      const [pk = '', n = ''] = entry.split(':');
      lastCommitted.set(pk, Math.max(lastCommitted.get(pk) ?? -1, Number(n)));
    }
    for (const [pk, ns] of second.byKey()) {
      const from = (lastCommitted.get(pk) ?? -1) + 1;
      expect({ pk, ns }).toEqual({ pk, ns: Array.from({ length: 13 - from }, (_, i) => from + i) });
    }
    expect(second.childrenBeforeParents()).toEqual([]);
    world.close();
  });

  it('fails typed when records were trimmed while it was down, and runs again after its checkpoints are cleared', async () => {
    const retentionMs = 60 * 60_000;
    const world = await simulatedWorld(client, { seed: 41, shards: 4, rolloverChance: 0.1, retentionMs });
    const { store } = await createCheckpointStore(client);
    const keys = partitionKeys(8);
    const key = { consumer: 'default', streamArn: world.streamArn };
    const options = { ...quickFeed, checkpoints: store, streamArn: world.streamArn, lease: false as const };
    await writeRounds(client, world.table, keys, 0, 4);
    const first = new DeliveryLog(world.simulation);
    await readUntil(new ChangeFeedConsumer({ ...options, streamsClient: world.client() }), first, () => first.deliveries.length >= 32);

    // Down past the retention: what was written meanwhile is trimmed before anyone reads it.
    await writeRounds(client, world.table, keys, 4, 6);
    await world.simulation.sync();
    world.simulation.clock.advance(retentionMs + 1);
    await world.simulation.sync();
    const stale = new ChangeFeedConsumer({ ...options, streamsClient: world.client() });
    const failed = runBatches(stale, async () => ({ batchItemFailures: [] }));
    await expect(failed).rejects.toBeInstanceOf(ChangeFeedTrimmedError);
    const error = (await failed.catch((e: unknown) => e)) as ChangeFeedTrimmedError;
    expect(error).toMatchObject({ code: 'feed.trimmed', streamArn: world.streamArn });
    expect(world.simulation.lineage().map((shard) => shard.shardId)).toContain(error.shardId);
    expect(error.message).toContain(error.shardId);

    // The documented recovery: rebuild what the feed maintains (nothing here), clear the checkpoints, start over.
    await store.clearCheckpoints(key);
    await writeRounds(client, world.table, keys, 6, 8);
    const third = new DeliveryLog(world.simulation);
    const run = deliverInto(new ChangeFeedConsumer({ ...options, streamsClient: world.client() }), third);
    await waitFor(() => third.deliveries.length >= keys.length * 2, 20_000, 'the records after the trim');
    await disableStream(client, world.table);
    await run;
    expect(third.deliveries.map((d) => `${d.pk}:${d.n}`).sort()).toEqual(written(keys, 6, 8).sort());
    world.close();
  });
});
