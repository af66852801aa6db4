import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { OrderSummaryProjection } from '../projections/projection';

declare const lag: {
  set(labels: { shard: string }, value: number): void;
};

// #region consumer
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  ChangeFeedConsumer,
  DynamoCheckpointStore,
} from 'dynafold/feed';

export async function orderFeed(
  client: DynamoDBClient,
  streamArn: string,
) {
  await client.send(
    new CreateTableCommand(
      DynamoCheckpointStore.tableDefinition('checkpoints'),
    ),
  );

  return new ChangeFeedConsumer({
    // Its own SDK client; the feed never creates or destroys it
    streamsClient: new DynamoDBStreamsClient({}),
    streamArn, // the events table's LatestStreamArn
    consumer: 'projections',
    checkpoints: new DynamoCheckpointStore({
      client,
      table: 'checkpoints',
    }),
    pollIntervalMs: 100,
  });
}
// #endregion consumer

export async function script(feed: ChangeFeedConsumer): Promise<void> {
  // #region for-await
  for await (const batch of feed) {
    for (const record of batch.records)
      console.log(record.eventName, record.dynamodb?.Keys);
    await batch.commit(); // checkpoint at batch.lastSequenceNumber
  }
  // #endregion for-await
}

// #region run
import { runChangeFeed } from 'dynafold/feed';

export async function project(
  feed: ChangeFeedConsumer,
  shutdown: Promise<void>,
): Promise<void> {
  const running = runChangeFeed(feed, {
    projections: [OrderSummaryProjection],
    onBatch: (result, batch) => {
      for (const outcome of result.outcomes['order-summaries'] ?? []) {
        if (outcome.status === 'applied')
          console.log(
            batch.shardId,
            `${outcome.streamId} -> v${outcome.version}`,
          );
      }
    },
  });
  await shutdown;
  await feed.stop();
  await running;
}
// #endregion run

export function observed(client: DynamoDBClient, streamArn: string) {
  const options = {
    streamsClient: new DynamoDBStreamsClient({}),
    streamArn,
    consumer: 'projections',
    checkpoints: new DynamoCheckpointStore({
      client,
      table: 'checkpoints',
    }),
  };
  // #region observability
  const feed = new ChangeFeedConsumer({
    ...options,
    logger: console, // or pino(), a Powertools Logger, app.log
    onMetrics: (shard) =>
      lag.set({ shard: shard.shardId }, shard.lagRecords),
  });
  // #endregion observability
  return feed;
}
