import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SimulatedStream } from './simulated-stream';

/**
 * Answers a real DynamoDBStreamsClient's DescribeStream, GetShardIterator and GetRecords from the
 * simulation, with a middleware at the start of its stack, as a user's middleware would: the consumer
 * keeps its client, and every other command still reaches DynamoDB Local. Returns the client.
 */
export function simulateStreams(client: DynamoDBStreamsClient, simulation: SimulatedStream): DynamoDBStreamsClient {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const output = await simulation.handle(context.commandName ?? '', args.input);
      if (output === undefined) return next(args);
      return { output: { ...output, $metadata: { httpStatusCode: 200, requestId: 'simulated', attempts: 1, totalRetryDelay: 0 } }, response: {} };
    },
    { step: 'initialize', name: 'simulatedStreams', priority: 'high' },
  );
  return client;
}
