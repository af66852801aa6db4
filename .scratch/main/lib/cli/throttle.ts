import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { RequestRate } from '../util';

/**
 * Holds every request the command's client sends to `requestsPerSecond` (a second's worth may go at once).
 * The config's streams and models are built on this client, so their requests are counted as they are sent,
 * scans included. Returns a function that removes the throttle.
 */
export function throttleClient(client: DynamoDBClient, requestsPerSecond: number, signal: AbortSignal): () => void {
  const rate = new RequestRate(requestsPerSecond);
  const name = 'dynafoldCommandThrottle';
  client.middlewareStack.add(
    (next) => async (args) => {
      await rate.take(1, signal);
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => void client.middlewareStack.remove(name);
}
