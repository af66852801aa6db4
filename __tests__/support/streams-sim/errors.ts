import {
  DynamoDBStreamsServiceException,
  ExpiredIteratorException,
  InternalServerError,
  LimitExceededException,
  ResourceNotFoundException,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';

/**
 * The errors the simulation answers with: the SDK's own exception classes, built the way its
 * deserializer builds them, so that a consumer can't tell them from the service's.
 */
const metadata = () => ({ httpStatusCode: 400, requestId: 'simulated', attempts: 1, totalRetryDelay: 0 });

export const SimErrors = {
  throttled: () => new LimitExceededException({ message: 'Rate of requests exceeds the allowed throughput (simulated)', $metadata: metadata() }),
  internal: () =>
    Object.assign(new InternalServerError({ message: 'An error occurred on the server side (simulated)', $metadata: metadata() }), {
      $metadata: { ...metadata(), httpStatusCode: 500 },
    }),
  expired: () => new ExpiredIteratorException({ message: 'Iterator expired (simulated)', $metadata: metadata() }),
  trimmed: (detail: string) => new TrimmedDataAccessException({ message: `Trimmed data: ${detail}`, $metadata: metadata() }),
  shardNotFound: () => new ResourceNotFoundException({ message: 'Shard does not exist', $metadata: metadata() }),
  streamNotFound: (arn: string) =>
    new ResourceNotFoundException({ message: `Requested resource not found: Stream: ${arn} not found`, $metadata: metadata() }),
  validation: (message: string) =>
    new DynamoDBStreamsServiceException({ name: 'ValidationException', $fault: 'client', message, $metadata: metadata() }),
} as const;
