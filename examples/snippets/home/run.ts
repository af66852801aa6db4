// The home page's three ways to run a projection: on Lambda, in a
// service, in a script.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { totals } from './orders';

declare const client: DynamoDBClient;
declare const streamArn: string;

// #region lambda
import { lambdaHandler } from 'dynafold/lambda';

// What a DynamoDB Streams event source mapping invokes: the records of
// failed rows are reported for a redelivery, the rest are done.
export const handler = lambdaHandler({ projections: [totals] });
// #endregion lambda

// #region service
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  ChangeFeedConsumer,
  DynamoCheckpointStore,
  MemoryCheckpointStore,
  runChangeFeed,
} from 'dynafold/feed';

// In a long-running process: the feed polls the table's stream,
// checkpoints what is done and holds a lease against a second copy.
export async function service(): Promise<void> {
  const feed = new ChangeFeedConsumer({
    streamsClient: new DynamoDBStreamsClient({}),
    streamArn,
    checkpoints: new DynamoCheckpointStore({ client, table: 'feed' }),
  });
  process.once('SIGTERM', () => void feed.stop());
  await runChangeFeed(feed, { projections: [totals] });
}
// #endregion service

// #region script
// A script: read the stream from its start, bring the rows up to date,
// and exit once it has caught up.
export async function script(): Promise<void> {
  const feed = new ChangeFeedConsumer({
    streamsClient: new DynamoDBStreamsClient({}),
    streamArn,
    checkpoints: new MemoryCheckpointStore(),
  });
  await runChangeFeed(feed, {
    projections: [totals],
    stopWhenCaughtUp: true,
  });
}
// #endregion script
