/**
 * `dynafold/lambda`: what an AWS Lambda function needs: the handlers of DynamoDB Streams and Kinesis event
 * source mappings, their options, defaults, event and context types, and the partial batch response they
 * answer. This file is the subpath's public API. It loads nothing the root entry does not: replaying a
 * batch a mapping gave up on (`replayFailure`) needs the Streams client, so it stays in `dynafold/feed`.
 */
export { lambdaHandler, kinesisHandler, LambdaHandlerDefaults } from '../projector';
export type {
  LambdaHandlerOptions,
  LambdaContextLike,
  LambdaStreamEvent,
  LambdaStreamRecord,
  LambdaStreamChange,
  LambdaAttributeValue,
  LambdaKinesisEvent,
  LambdaKinesisRecord,
  LambdaKinesisPayload,
  PartialBatchResponse,
} from '../projector';
