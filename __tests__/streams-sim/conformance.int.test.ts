import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import { testClient } from '../support/dynamo';
import { SimulatedStream, simulateStreams } from '../support/streams-sim';
import { createStreamedTable, disableStream, streamsClient, writeItems } from '../feed/support';

/**
 * The simulation with one shard and no faults against DynamoDB Local itself, on what both have: the same
 * records, pages, iterator types, errors, and a closed shard's end once the stream is disabled.
 */
const client = testClient();
const clients: DynamoDBStreamsClient[] = [];

function newStreamsClient(): DynamoDBStreamsClient {
  const streams = streamsClient();
  clients.push(streams);
  return streams;
}

afterAll(() => {
  client.destroy();
  for (const streams of clients) streams.destroy();
});

/** One endpoint's view: its one shard, and reads through a client. */
interface Endpoint {
  readonly name: string;
  readonly client: DynamoDBStreamsClient;
  shardId: string;
}

async function onlyShard(endpoint: Endpoint, streamArn: string) {
  const { StreamDescription } = await endpoint.client.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  expect(StreamDescription?.Shards).toHaveLength(1);
  return { description: StreamDescription, shard: StreamDescription?.Shards?.[0] };
}

async function iterator(endpoint: Endpoint, streamArn: string, type: ShardIteratorType, sequenceNumber?: string) {
  const answer = await endpoint.client.send(
    new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: endpoint.shardId, ShardIteratorType: type, SequenceNumber: sequenceNumber }),
  );
  return answer.ShardIterator;
}

/** Every page from an iterator until it has no next one or gives an empty page: [sequence numbers per page], and whether it ended. */
async function readPages(endpoint: Endpoint, first: string | undefined, limit: number) {
  const pages: string[][] = [];
  let current = first;
  while (current !== undefined) {
    const answer = await endpoint.client.send(new GetRecordsCommand({ ShardIterator: current, Limit: limit }));
    const records = answer.Records ?? [];
    pages.push(records.map((record) => `${record.eventID}@${record.dynamodb?.SequenceNumber}`));
    current = answer.NextShardIterator;
    if (records.length === 0) break;
  }
  return { pages, ended: current === undefined };
}

async function errorOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'none';
  } catch (error) {
    return error instanceof Error ? error.name : String(error);
  }
}

describe('the simulated stream with one shard, against DynamoDB Local', () => {
  it('answers the same records, pages, positions, errors and closed-shard end', async () => {
    const { table, streamArn } = await createStreamedTable(client, 'conformance');
    // No propagation delay: DynamoDB Local answers a write's record on the very next GetRecords.
    const simulation = await SimulatedStream.create({ source: newStreamsClient(), streamArn, seed: 7, propagationMs: 0 });
    const local: Endpoint = { name: 'local', client: newStreamsClient(), shardId: '' };
    const simulated: Endpoint = { name: 'simulated', client: simulateStreams(newStreamsClient(), simulation), shardId: '' };
    const both = [local, simulated];
    await writeItems(client, table, 'a', 0, 5);

    const described = await Promise.all(both.map((endpoint) => onlyShard(endpoint, streamArn)));
    for (const [i, endpoint] of both.entries()) endpoint.shardId = described[i]?.shard?.ShardId as string;
    const [localShard, simulatedShard] = described.map(({ shard }) => shard);
    expect(simulatedShard?.SequenceNumberRange).toEqual(localShard?.SequenceNumberRange);
    expect(simulatedShard?.ParentShardId).toBeUndefined();
    expect(simulatedShard?.ShardId).toMatch(/^shardId-\d{20}-[0-9a-f]{8}$/);
    expect(described[1]?.description).toMatchObject({ StreamArn: streamArn, StreamStatus: 'ENABLED', TableName: table, StreamViewType: 'NEW_IMAGE' });

    // TRIM_HORIZON, in pages of two: the same records in the same pages.
    const fromHorizon = await Promise.all(both.map(async (e) => readPages(e, await iterator(e, streamArn, 'TRIM_HORIZON'), 2)));
    expect(fromHorizon[0]?.pages.flat()).toHaveLength(5);
    expect(fromHorizon[1]).toEqual(fromHorizon[0]);
    const sequenceNumbers = (fromHorizon[0]?.pages.flat() ?? []).map((entry) => entry.split('@')[1] as string);

    // AT and AFTER a sequence number in the middle.
    const third = sequenceNumbers[2] as string;
    for (const type of ['AT_SEQUENCE_NUMBER', 'AFTER_SEQUENCE_NUMBER'] as const) {
      const read = await Promise.all(both.map(async (e) => readPages(e, await iterator(e, streamArn, type, third), 10)));
      expect(read[1]?.pages[0]).toEqual(read[0]?.pages[0]);
      expect(read[0]?.pages[0]?.[0]).toContain(type === 'AT_SEQUENCE_NUMBER' ? third : (sequenceNumbers[3] as string));
    }

    // LATEST, then new writes: only those.
    const latest = await Promise.all(both.map((e) => iterator(e, streamArn, 'LATEST')));
    await writeItems(client, table, 'b', 0, 3);
    const afterLatest = await Promise.all(both.map((e, i) => readPages(e, latest[i], 10)));
    expect(afterLatest[0]?.pages[0]).toHaveLength(3);
    expect(afterLatest[1]?.pages[0]).toEqual(afterLatest[0]?.pages[0]);
    expect(afterLatest.map((read) => read.ended)).toEqual([false, false]);

    // The same errors for a bad iterator, an unknown shard, a sequence number before the shard, a bad limit, an unknown stream.
    for (const e of both) {
      expect(await errorOf(e.client.send(new GetRecordsCommand({ ShardIterator: 'nonsense' })))).toBe('ValidationException');
      const unknownShard = new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: 'shardId-00000000000000000000-00000000',
        ShardIteratorType: 'TRIM_HORIZON',
      });
      expect(await errorOf(e.client.send(unknownShard))).toBe('ResourceNotFoundException');
      expect(await errorOf(iterator(e, streamArn, 'AT_SEQUENCE_NUMBER', '000000000000000000000'))).toBe('ValidationException');
      expect(await errorOf(e.client.send(new DescribeStreamCommand({ StreamArn: streamArn, Limit: 0 })))).toBe('ValidationException');
      expect(await errorOf(e.client.send(new DescribeStreamCommand({ StreamArn: `${streamArn}x` })))).toBe('ResourceNotFoundException');
    }

    // Disabling the stream closes the shard after its last record; reading it to its end gives no next iterator.
    await disableStream(client, table);
    const closed = await Promise.all(both.map((endpoint) => onlyShard(endpoint, streamArn)));
    expect(closed.map(({ description }) => description?.StreamStatus)).toEqual(['DISABLED', 'DISABLED']);
    expect(closed[1]?.shard?.SequenceNumberRange).toEqual(closed[0]?.shard?.SequenceNumberRange);
    const ending = closed[0]?.shard?.SequenceNumberRange?.EndingSequenceNumber as string;
    expect(ending).toBe(afterLatest[0]?.pages[0]?.at(-1)?.split('@')[1]);
    const drained = await Promise.all(both.map(async (e) => readPages(e, await iterator(e, streamArn, 'TRIM_HORIZON'), 3)));
    expect(drained[0]).toEqual({ pages: expect.any(Array), ended: true });
    expect(drained[1]).toEqual(drained[0]);
    for (const type of ['LATEST', 'AFTER_SEQUENCE_NUMBER'] as const) {
      const atEnd = await Promise.all(
        both.map(async (e) => readPages(e, await iterator(e, streamArn, type, type === 'LATEST' ? undefined : ending), 10)),
      );
      expect(atEnd).toEqual([
        { pages: [[]], ended: true },
        { pages: [[]], ended: true },
      ]);
    }
  });
});
