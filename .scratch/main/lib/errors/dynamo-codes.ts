import type { ErrorTable } from './catalogue';

/** The errors of requests to DynamoDB and DynamoDB Streams: code, HTTP status and class. */
export const DynamoCodes = {
  // DynamoDB failed or refused the request: an upstream failure, transient when DynamoDB's answer is (throttled, 5xx).
  'dynamo.request': { status: 502, error: 'DynamoRequestError', transient: 'cause' },
  // A table or stream missing, or refused to our credentials: the deployment is misconfigured. Not 404 or
  // 403, which would tell the API's client that its resource is missing or its access refused.
  'dynamo.tableNotFound': { status: 500, error: 'TableNotFoundError' },
  'dynamo.streamNotFound': { status: 500, error: 'StreamNotFoundError' },
  'dynamo.accessDenied': { status: 500, error: 'AccessDeniedError' },
} as const satisfies ErrorTable;
