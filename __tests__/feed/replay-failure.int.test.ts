import { DescribeStreamCommand } from '@aws-sdk/client-dynamodb-streams';
import { ValidationError, eventsTableDefinition, isTransient, readModelTableDefinition } from 'dynafold';
import { ChangeFeedTrimmedError, ReplayRangeError, replayFailure } from 'dynafold/feed';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream } from '../support/orders';
import { insertsOnly, readStreamRecords } from '../support/stream-records';
import { streamsClient } from './support';

const client = testClient();
const streams = streamsClient();
afterAll(() => {
  client.destroy();
  streams.destroy();
});

/** An OnFailure destination's invocation record for a batch, as Lambda writes it. */
function failureRecord(streamArn: string, shardId: string, first: string, last: string, size: number) {
  return {
    requestContext: {
      requestId: 'r-1',
      functionArn: 'arn:aws:lambda:us-east-1:0:function:projector',
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: 3,
    },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    version: '1.0',
    timestamp: new Date().toISOString(),
    DDBStreamBatchInfo: {
      shardId,
      startSequenceNumber: first,
      endSequenceNumber: last,
      approximateArrivalOfFirstRecord: new Date().toISOString(),
      approximateArrivalOfLastRecord: new Date().toISOString(),
      batchSize: size,
      streamArn,
    },
  };
}

test('replayFailure reads the batch a mapping gave up on from its coordinates (an SQS message) and projects it', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'replay-events');
  const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'replay-views')).name;
  const stream = orderStream(client, events.name);
  await stream.append({ orderId: 'r-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  await stream.append({ orderId: 'r-2' }, [{ type: 'OrderPlaced', data: { customer: 'bob' } }]);
  await stream.append({ orderId: 'r-1' }, [{ type: 'ItemAdded', data: { sku: 'a', price: 3 } }]);
  const records = insertsOnly(await readStreamRecords(events.streamArn as string));
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: events.streamArn }));
  const shardId = StreamDescription?.Shards?.[0]?.ShardId as string;
  const sequence = (index: number) => records[index]?.dynamodb?.SequenceNumber as string;
  // The batch Lambda gave up on: the last two records, handed over as an SQS message's body.
  const message = { messageId: 'm-1', body: JSON.stringify(failureRecord(events.streamArn as string, shardId, sequence(1), sequence(2), 2)) };
  const summaries = orderSummaries(client, views);
  const result = await replayFailure(message, { streamsClient: streams, projections: { summaries: orderSummaryProjection(stream, summaries) } });
  expect(result.response.batchItemFailures).toEqual([]);
  expect(result.outcomes.summaries.flatMap((outcome) => outcome.applied.map((event) => `${event.streamId}@${event.version}`)).sort()).toEqual([
    'r-1@1',
    'r-1@2',
    'r-2@1',
  ]);
  for (const orderId of ['r-1', 'r-2'])
    expect(await summaries.get({ orderId }, { consistent: true })).toMatchObject(foldSummary(orderId, await stream.read({ orderId })));
});

test('a batch whose shard is gone fails typed, saying that the rows heal at their next event and what to catch up', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'replay-gone');
  const stream = orderStream(client, events.name);
  const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'replay-gone-views')).name;
  const message = failureRecord(
    events.streamArn as string,
    'shardId-00000000000000000000-00000000',
    '000000000000000000001',
    '000000000000000000002',
    2,
  );
  const replay = replayFailure(JSON.stringify(message), {
    streamsClient: streams,
    projections: { summaries: orderSummaryProjection(stream, orderSummaries(client, views)) },
  });
  await expect(replay).rejects.toBeInstanceOf(ChangeFeedTrimmedError);
  await expect(replay).rejects.toThrow(/heal at their next event; to bring them up now, catchUp the stream instances appended in that window/);
  await expect(replayFailure({ not: 'a failure record' }, { streamsClient: streams, projections: {} })).rejects.toThrow(/DDBStreamBatchInfo/);
});

describe('a failure record that does not hold up is refused, never resolved as a replay of nothing', () => {
  let streamArn: string;
  let shardId: string;
  let sequences: string[];
  let projections: { summaries: ReturnType<typeof orderSummaryProjection> };
  beforeAll(async () => {
    const events = await createTestTable(client, eventsTableDefinition, 'replay-bad');
    streamArn = events.streamArn as string;
    const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'replay-bad-views')).name;
    const stream = orderStream(client, events.name);
    await stream.append({ orderId: 'b-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
    await stream.append({ orderId: 'b-1' }, [{ type: 'ItemAdded', data: { sku: 'a', price: 3 } }]);
    sequences = insertsOnly(await readStreamRecords(streamArn)).map((record) => record.dynamodb?.SequenceNumber as string);
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    shardId = StreamDescription?.Shards?.[0]?.ShardId as string;
    projections = { summaries: orderSummaryProjection(stream, orderSummaries(client, views)) };
  });

  test('a malformed or inverted range is a ValidationError naming the field, before any request', async () => {
    const counted = streamsClient();
    let sent = 0;
    counted.middlewareStack.add(
      (next) => async (args) => {
        sent++;
        return next(args);
      },
      { step: 'initialize', name: 'countStreams' },
    );
    try {
      const bad = [
        failureRecord(streamArn, shardId, 'first', sequences[1] as string, 2),
        failureRecord(streamArn, shardId, sequences[0] as string, 'last', 2),
        failureRecord(streamArn, shardId, sequences[1] as string, sequences[0] as string, 2),
        failureRecord(streamArn, shardId, sequences[0] as string, sequences[1] as string, 0),
      ];
      for (const message of bad) {
        await expect(replayFailure(message, { streamsClient: counted, projections })).rejects.toBeInstanceOf(ValidationError);
      }
      await expect(replayFailure(bad[0], { streamsClient: counted, projections })).rejects.toThrow(/startSequenceNumber is "first"/);
      await expect(replayFailure(bad[2], { streamsClient: counted, projections })).rejects.toThrow(/inverted/);
      expect(sent).toBe(0);
    } finally {
      counted.destroy();
    }
  });

  test('a range past the shard’s last record, or holding fewer records than its batchSize, is a ReplayRangeError', async () => {
    const last = sequences.at(-1) as string;
    const past = (BigInt(last) + 1000n).toString().padStart(last.length, '0');
    const beyond = failureRecord(streamArn, shardId, past, (BigInt(past) + 10n).toString().padStart(last.length, '0'), 1);
    await expect(replayFailure(beyond, { streamsClient: streams, projections, logger: false })).rejects.toMatchObject({
      code: 'feed.replayRange',
      found: 0,
    });
    const short = failureRecord(streamArn, shardId, sequences[0] as string, sequences[1] as string, 5);
    const error = await replayFailure(short, { streamsClient: streams, projections, logger: false }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReplayRangeError);
    expect(error).toMatchObject({ batchSize: 5, found: 2 });
  });

  test('a sequence number DynamoDB answers with a 500 is retried a bounded number of times, then fails typed and transient', async () => {
    const failing = streamsClient();
    let attempts = 0;
    failing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'GetShardIteratorCommand') return next(args);
        attempts++;
        throw Object.assign(new Error('Internal server error (injected)'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } });
      },
      { step: 'finalizeRequest', name: 'failIterator' },
    );
    try {
      const message = failureRecord(streamArn, shardId, sequences[0] as string, sequences[1] as string, 2);
      const error = await replayFailure(message, { streamsClient: failing, projections }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'feed.request', operation: 'GetShardIterator' });
      expect(isTransient(error)).toBe(true);
      expect(attempts).toBe(6);
    } finally {
      failing.destroy();
    }
  });
});
