import { DescribeStreamCommand } from '@aws-sdk/client-dynamodb-streams';
import { eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { ChangeFeedTrimmedError, replayFailure } from 'dynafold/feed';
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
