import type { SQSEvent } from 'aws-lambda';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { OrderSummaryProjection as summaries } from './projection';

const streamsClient = new DynamoDBStreamsClient({});

// #region replay
import { replayFailure } from 'dynafold/feed';

export const onFailureHandler = async (event: SQSEvent) => {
  for (const message of event.Records) {
    const result = await replayFailure(message, {
      streamsClient,
      projections: [summaries],
    });
    if (result.response.batchItemFailures.length > 0)
      throw new Error('replay incomplete'); // the queue retries
  }
};
// #endregion replay
