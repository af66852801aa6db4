/**
 * `dynafold/lambda`: the transports that hand stream records to projections and answer with a partial
 * batch response: the handlers of DynamoDB Streams and Kinesis event source mappings (and EventBridge
 * Pipes, whose records `processBatch` reads with `source: 'pipe'`), `processBatch` for a handler of one's
 * own, the record shapes and `BatchResponse`, the one builder of `{ batchItemFailures }` that the change
 * feed answers with too; `unmarshallImage` for the images of records a handler reads itself, and
 * `eventFilterPattern`, the FilterCriteria of a mapping or a Pipe. This file is the subpath's public API.
 * It loads nothing the root entry does not: replaying a batch a mapping gave up on (`replayFailure`) needs
 * the Streams client, so it stays in `dynafold/feed`.
 */
export { lambdaHandler, kinesisHandler } from './lambda';
export type { LambdaHandlerOptions, LambdaContextLike } from './lambda';
export { LambdaHandlerDefaults } from './defaults';
export type {
  LambdaAttributeValue,
  LambdaKinesisEvent,
  LambdaKinesisPayload,
  LambdaKinesisRecord,
  LambdaStreamChange,
  LambdaStreamEvent,
  LambdaStreamRecord,
} from './lambda-event';
export { processBatch, answerAfter } from './process-batch';
export type { ProcessBatchOptions, ProcessResult, Unrouted, OutcomeOf, EventOfProjection, OnBatch } from './process-batch';
export type { BatchMetrics, ProjectionMetrics } from './batch-metrics';
export { BatchResponse, batchResponse } from './batch-response';
export type { PartialBatchResponse } from './batch-response';
export type { StreamRecordLike, RecordSource, RecordReading, DecodeFailure } from './records';
export { unmarshallImage, eventFilterPattern } from '../store';
export type { StreamImage, EventFilterOptions } from '../store';
