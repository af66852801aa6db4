import { ChangeFeedConsumer, ChangeFeedTrimmedError, MemoryCheckpointStore, runBatches, type ShardMetrics } from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { createStreamedTable, disableStream, keysOf, streamsClient, waitFor, writeItems, localFeed } from './support';

const client = testClient();
const streams = streamsClient();

afterAll(() => {
  client.destroy();
  streams.destroy();
});

describe('positions', () => {
  it("startingPosition 'LATEST' skips what was written before the first start; a restart resumes from the checkpoint", async () => {
    const { table, streamArn } = await createStreamedTable(client);
    await writeItems(client, table, 'old', 0, 3);
    const checkpoints = new MemoryCheckpointStore();
    const options = { streamsClient: streams, streamArn, checkpoints, ...localFeed, startingPosition: 'LATEST' as const };
    const feed = new ChangeFeedConsumer(options);
    const seen: string[] = [];
    const run = runBatches(feed, async (batch) => {
      seen.push(...keysOf(batch));
      return { batchItemFailures: [] };
    });
    await waitFor(() => feed.status().shards.some((shard) => shard.state === 'reading'), 10_000, 'the shard reader');
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the LATEST iterator be taken before writing
    await writeItems(client, table, 'new', 0, 2);
    await waitFor(() => seen.length >= 2, 10_000, 'new records');
    await feed.stop();
    await run;
    expect(seen).toEqual(['new:0', 'new:1']);

    // With checkpoints, LATEST no longer applies.
    await writeItems(client, table, 'new', 2, 3);
    await disableStream(client, table);
    const again: string[] = [];
    await runBatches(new ChangeFeedConsumer(options), async (batch) => {
      again.push(...keysOf(batch));
      return { batchItemFailures: [] };
    });
    expect(again).toEqual(['new:2']);
  });

  it('fails at a restart, before reading, when a checkpointed shard has left the stream', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    await writeItems(client, table, 'g', 0, 1);
    const checkpoints = new MemoryCheckpointStore();
    await checkpoints.putCheckpoint({ consumer: 'default', streamArn }, 'shardId-00000000000000000000-gone0000', '000000000000000000004');
    const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, checkpoints });
    const next = feed[Symbol.asyncIterator]().next();
    await expect(next).rejects.toBeInstanceOf(ChangeFeedTrimmedError);
    await expect(next).rejects.toMatchObject({ shardId: 'shardId-00000000000000000000-gone0000', sequenceNumber: '000000000000000000004' });
  });

  it('never finishes an open shard that returns no iterator: it refreshes the shard list and reads on', async () => {
    const { table, streamArn } = await createStreamedTable(client);
    await writeItems(client, table, 'o', 0, 2);
    const faulty = streamsClient();
    let dropped = 0;
    let describes = 0;
    faulty.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'DescribeStreamCommand') describes++;
        const output = result.output as { NextShardIterator?: string };
        if (context.commandName === 'GetRecordsCommand' && dropped < 2) {
          dropped++;
          delete output.NextShardIterator;
        }
        return result;
      },
      { step: 'initialize', name: 'dropIterator' },
    );
    const checkpoints = new MemoryCheckpointStore();
    const metrics: ShardMetrics[] = [];
    const feed = new ChangeFeedConsumer({
      ...localFeed,
      streamsClient: faulty,
      streamArn,
      checkpoints,
      backoff: { initialMs: 10, maxMs: 20 },
      onMetrics: (m) => metrics.push(m),
    });
    const seen: string[] = [];
    const run = runBatches(feed, async (batch) => {
      seen.push(...keysOf(batch));
      return { batchItemFailures: [] };
    });
    await waitFor(() => seen.length >= 2, 10_000, 'records');
    await writeItems(client, table, 'o', 2, 3);
    await waitFor(() => seen.length >= 3, 10_000, 'a later record');
    expect(dropped).toBe(2);
    expect(describes).toBeGreaterThanOrEqual(2);
    expect([...(await checkpoints.getCheckpoints({ consumer: 'default', streamArn })).values()]).not.toContainEqual({ kind: 'finished' });

    await disableStream(client, table);
    await run;
    faulty.destroy();
    expect(seen).toEqual(['o:0', 'o:1', 'o:2']);
    const last = metrics[metrics.length - 1];
    expect(last).toMatchObject({ state: 'finished', recordsRead: 3, lagRecords: 0, batchesFailed: 0 });
    expect(feed.status().shards).toEqual([expect.objectContaining({ state: 'finished', checkpoint: last?.checkpoint })]);
  });
});
