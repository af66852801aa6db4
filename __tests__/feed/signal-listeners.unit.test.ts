import { getMaxListeners } from 'node:events';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ChangeFeedConsumer, MemoryCheckpointStore } from 'dynafold/feed';

describe("the feed's abort signal", () => {
  it('takes any number of listeners: every shard reader waits on it, so a busy stream would warn of a leak', () => {
    const streamsClient = new DynamoDBStreamsClient({ region: 'local' });
    const feed = new ChangeFeedConsumer({ streamsClient, streamArn: 'arn:test', checkpoints: new MemoryCheckpointStore() });
    // The signal is internal; Node's limit on it is what users would meet as a MaxListenersExceededWarning.
    const { signal } = (feed as unknown as { controller: AbortController }).controller;
    expect(getMaxListeners(signal)).toBe(Number.POSITIVE_INFINITY);
    streamsClient.destroy();
  });
});
